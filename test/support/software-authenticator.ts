import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * A software authenticator and client for the passkey tests (issue 30): what a phone's platform
 * does between the options the service gives and the credential JSON the app sends back, built
 * from the WebAuthn Level 3 formats themselves: P-256 keys, real authenticatorData (RP ID hash,
 * flags, signature counter, attested credential data with a COSE key), clientDataJSON, and a CBOR
 * attestation object of the `none` format. Every field a test wants to falsify can be overridden.
 */

/** A minimal CBOR encoder (RFC 8949): unsigned and negative integers, byte and text strings, arrays and maps. */
export function cbor(value: unknown): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const buffer = Buffer.alloc(5);
    buffer[0] = (major << 5) | 26;
    buffer.writeUInt32BE(length, 1);
    return buffer;
  };
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('only integers');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
  }
  throw new Error(`cannot encode ${typeof value}`);
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_BACKUP_ELIGIBLE = 0x08;
const FLAG_BACKED_UP = 0x10;
const FLAG_ATTESTED_DATA = 0x40;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** The COSE_Key (RFC 9053) of a P-256 public key, ES256. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return cbor(
    new Map<number, unknown>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

export interface StoredCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a test may falsify in one ceremony. */
export interface CeremonyOverrides {
  /** The origin clientDataJSON reports (default: the authenticator's). */
  origin?: string;
  /** The RP ID whose hash authenticatorData carries (default: the options'). */
  rpId?: string;
  /** Whether the person was verified (UV flag; default true). */
  userVerified?: boolean;
  /** clientDataJSON's type (default `webauthn.create` / `webauthn.get`). */
  type?: string;
  /** The challenge clientDataJSON carries (default: the options'). */
  challenge?: string;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** Which credential answers (default: the newest for the RP ID, as a platform offers it). */
  credentialId?: string;
  /** The signature counter reported (default: the next, or 0 for an authenticator that does not count). */
  counter?: number;
  /** Signs with a key that is not the credential's. */
  forgeSignature?: boolean;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: { id: string }[];
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];

  constructor(
    readonly settings: {
      /** The web origin the client runs on. */
      origin: string;
      /** Counts signatures (a security key) or always reports 0 (a synced passkey). */
      counts?: boolean;
      /** A synced passkey: backup eligible and backed up. */
      synced?: boolean;
    },
  ) {}

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides): Buffer {
    return Buffer.from(
      JSON.stringify({ type: overrides.type ?? type, challenge: overrides.challenge ?? challenge, origin: overrides.origin ?? this.settings.origin, crossOrigin: false }),
    );
  }

  private flags(overrides: CeremonyOverrides, attested: boolean): number {
    let flags = FLAG_USER_PRESENT;
    if (overrides.userVerified !== false) flags |= FLAG_USER_VERIFIED;
    if (this.settings.synced) flags |= FLAG_BACKUP_ELIGIBLE | FLAG_BACKED_UP;
    if (attested) flags |= FLAG_ATTESTED_DATA;
    return flags;
  }

  private static counterBytes(counter: number): Buffer {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(counter);
    return bytes;
  }

  /** navigator.credentials.create() and PublicKeyCredential.toJSON(). */
  create(options: CreationOptions, overrides: CeremonyOverrides = {}) {
    const rpId = overrides.rpId ?? options.rp.id ?? new URL(this.settings.origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((credential) => credential.id));
    if (this.credentials.some((credential) => excluded.has(b64url(credential.id)))) throw new Error('InvalidStateError: this authenticator already holds a passkey of the account');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(32);
    const counter = this.settings.counts ? 1 : 0;
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authenticatorData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(overrides, true)]),
      SoftwareAuthenticator.counterBytes(counter),
      Buffer.alloc(16), // AAGUID: none
      length,
      id,
      coseKey(publicKey),
    ]);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authenticatorData]]));
    this.credentials.push({ id, privateKey, publicKey, rpId, userHandle: options.user.id, counter });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, overrides)),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'] as ('internal' | 'hybrid')[],
      },
    };
  }

  /** navigator.credentials.get() and PublicKeyCredential.toJSON(). */
  get(options: RequestOptions, overrides: AssertionOverrides = {}) {
    const rpId = options.rpId ?? new URL(this.settings.origin).hostname;
    const credential = overrides.credentialId
      ? this.credentials.find((candidate) => b64url(candidate.id) === overrides.credentialId)
      : this.credentials.filter((candidate) => candidate.rpId === rpId).at(-1);
    if (!credential) throw new Error('NotAllowedError: no passkey for this RP ID');
    if (overrides.counter !== undefined) credential.counter = overrides.counter;
    else if (this.settings.counts) credential.counter += 1;
    const authenticatorData = Buffer.concat([
      sha256(overrides.rpId ?? rpId),
      Buffer.from([this.flags(overrides, false)]),
      SoftwareAuthenticator.counterBytes(credential.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides);
    const signingKey = overrides.forgeSignature ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : credential.privateKey;
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), signingKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
