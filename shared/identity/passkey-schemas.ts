import * as z from 'zod/mini';
import { textField } from '../fields';

/**
 * The request bodies of the passkey ceremonies: the platform's credential as JSON, exactly as
 * WebAuthn Level 3 `PublicKeyCredential.toJSON()` gives it (base64url binary fields), which the
 * platforms' passkey modules return too. Only the shape is checked here; what the bytes say is
 * checked by @simplewebauthn/server (shared/identity/passkey-service.ts), and a credential that
 * fails there is a 401 PASSKEY_INVALID, not a 400.
 */
const base64url = (description: string, maxLength = 16_384) =>
  z.string().check(z.regex(/^[A-Za-z0-9_-]+$/, 'must be base64url'), z.maxLength(maxLength), z.meta({ description }));

export const AUTHENTICATOR_TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;

const credentialFields = {
  id: base64url('The credential id', 1_400),
  rawId: base64url('The same credential id', 1_400),
  type: z.literal('public-key'),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
};

export const registrationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url('Collected client data'),
    attestationObject: base64url('CBOR attestation object'),
    authenticatorData: z.optional(base64url('Authenticator data')),
    transports: z.optional(z.array(z.enum(AUTHENTICATOR_TRANSPORTS)).check(z.maxLength(AUTHENTICATOR_TRANSPORTS.length))),
    publicKeyAlgorithm: z.optional(z.int()),
    publicKey: z.optional(base64url('SubjectPublicKeyInfo')),
  }),
}).check(z.meta({ description: 'What `navigator.credentials.create()` returned, as `PublicKeyCredential.toJSON()` gives it' }));

export const authenticationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url('Collected client data'),
    authenticatorData: base64url('Authenticator data'),
    signature: base64url('The assertion signature'),
    userHandle: z.optional(base64url('The user handle the passkey was made with', 128)),
  }),
}).check(z.meta({ description: 'What `navigator.credentials.get()` returned, as `PublicKeyCredential.toJSON()` gives it' }));

/** How the person names a passkey in their list. */
export const passkeyNameSchema = textField(1, 64).check(
  z.refine((value) => value.trim().length > 0, 'must not be blank'),
  z.meta({ description: 'How the passkey is listed', examples: ['iPhone 15 · iCloud Keychain'] }),
);

/** The SHA-256 of the credential id, base64url: names a passkey in paths. */
export const PASSKEY_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const passkeyPathParams = z.object({
  passkeyId: z.string().check(
    z.regex(PASSKEY_ID_PATTERN, 'must be a passkey id as GET /api/auth/passkeys lists it'),
    z.meta({ description: 'From `GET /api/auth/passkeys`', examples: ['Qm9vay1pZC1vZi1hLXBhc3NrZXktZm9yLWV4YW1wbGU'] }),
  ),
});
