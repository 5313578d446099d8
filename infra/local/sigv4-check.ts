import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * The local server's stand-in for API Gateway's AWS_IAM authorization of the `/admin` routes
 * (issue 37): a request must carry a Signature Version 4 `Authorization` for service
 * `execute-api`, made with the local admin credentials, over exactly the request received: its
 * method, path, query, the headers it says it signed, and the SHA-256 of the body as received
 * (never a hash a header claims), dated within 15 minutes of the server's clock. The signature
 * is recomputed with the SDK's own signer (@smithy/signature-v4), never by hand.
 */
export interface LocalAdminCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The defaults `npm start` prints; local mode only (the stack never reads them). */
export const DEFAULT_LOCAL_ADMIN_CREDENTIALS: LocalAdminCredentials = {
  accessKeyId: 'AKIALOCALADMIN000001',
  secretAccessKey: 'local-admin-secret-never-used-on-aws',
};

/** Who the local admin is in the audit trail: an IAM user ARN in the account local mode uses. */
export const LOCAL_ADMIN_ARN = 'arn:aws:iam::000000000000:user/local-admin';

/** As API Gateway (and SigV4 everywhere): a request dated more than this from the server's clock is refused. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const CONTENT_SHA256 = 'x-amz-content-sha256';

export interface ReceivedRequest {
  method: string;
  /** The path as received (percent-encoding included). */
  path: string;
  /** Query parameters, decoded; repeated names as arrays. */
  query: Record<string, string | string[]>;
  /** Header values by lower-case name (repeated ones joined with a comma, as SigV4 canonicalises them). */
  headers: Record<string, string>;
  body: Buffer;
}

/** Why a request was refused (for the log and the tests; the caller gets one 403 for all). */
export type SignatureRefusal = 'unsigned' | 'malformed' | 'unknown-key' | 'wrong-scope' | 'stale' | 'mismatch';

export type SignatureCheck = { ok: true; actorArn: string } | { ok: false; reason: SignatureRefusal };

export async function checkSignature(request: ReceivedRequest, credentials: LocalAdminCredentials, region: string, now: Date): Promise<SignatureCheck> {
  const header = request.headers.authorization;
  if (!header || !header.startsWith('AWS4-HMAC-SHA256 ')) return { ok: false, reason: 'unsigned' };
  const match = AUTHORIZATION.exec(header);
  const amzDate = request.headers['x-amz-date'];
  const date = amzDate ? AMZ_DATE.exec(amzDate) : null;
  if (!match || !date) return { ok: false, reason: 'malformed' };
  const [, accessKeyId, scopeDate, scopeRegion, scopeService, signedHeaderList, presented] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return { ok: false, reason: 'unknown-key' };
  if (scopeDate !== amzDate!.slice(0, 8) || scopeRegion !== region || scopeService !== 'execute-api') return { ok: false, reason: 'wrong-scope' };
  const signingDate = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
  if (Math.abs(now.getTime() - signingDate.getTime()) > MAX_CLOCK_SKEW_MS) return { ok: false, reason: 'stale' };
  const signedHeaders = signedHeaderList!.split(';');
  // As AWS: the host is always signed, and every header named is present.
  if (!signedHeaders.includes('host') || signedHeaders.some((name) => request.headers[name] === undefined)) return { ok: false, reason: 'malformed' };

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) if (name !== 'x-amz-date' && name !== CONTENT_SHA256) headers[name] = request.headers[name]!;
  const bodyHash = Hash.bind(null, 'sha256');
  const received = new bodyHash();
  received.update(request.body);
  const receivedHash = Buffer.from(await received.digest()).toString('hex');
  // The body's hash is always the received body's: where the client signed the header, the
  // header takes the received hash, so a header claiming another body fails the comparison.
  if (signedHeaders.includes(CONTENT_SHA256)) headers[CONTENT_SHA256] = receivedHash;
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials,
    sha256: bodyHash,
    // Added only where the client signed it (above); otherwise the body itself is hashed.
    applyChecksum: false,
  });
  const recomputed = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: 'localhost', path: request.path, query: request.query, headers, body: request.body },
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(recomputed.headers.authorization))?.[1] ?? '';
  const expectedHeaders = /SignedHeaders=([^,]+),/.exec(String(recomputed.headers.authorization))?.[1];
  const same = expected.length === presented!.length && timingSafeEqual(Buffer.from(expected), Buffer.from(presented!)) && expectedHeaders === signedHeaderList;
  return same ? { ok: true, actorArn: LOCAL_ADMIN_ARN } : { ok: false, reason: 'mismatch' };
}
