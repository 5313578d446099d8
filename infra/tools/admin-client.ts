import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * Calls the admin API (issue 37) with a Signature Version 4 request for service `execute-api`,
 * signed by the SDK's signer (@smithy/signature-v4) with whatever credentials it is given: the
 * standard chain on a stage (`npm run admin -- --url ...`), the local admin's locally. Used by the
 * support CLI (infra/tools/admin.ts) and the tests.
 */
export interface AdminClientOptions {
  /** The API's base URL: a stage's `ApiUrl` output (`https://<id>.execute-api.<region>.amazonaws.com/<stage>/`) or the local server's. */
  baseUrl: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** The request's time (now if not given): tests whose server runs on a moved clock. */
  now?: () => Date;
}

export interface AdminRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under the base URL: `/admin/users`, `/admin/users/42/disable` ... */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** A body sent (and signed) as it is, instead of `body` as JSON: tests of what the API refuses. */
  rawBody?: string;
}

export interface SignedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface AdminResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON answer (text when it is not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the CLI prints whatever the API answered
}

/** The request as it will be sent, signed: the URL, its headers (Host left to fetch) and body. */
export async function signAdminRequest(options: AdminClientOptions, request: AdminRequest): Promise<SignedRequest> {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  // A stage URL carries the stage as its first segment: the signed path is the whole path.
  const path = `${base.pathname.replace(/\/$/, '')}${request.path}`;
  const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
  const signer = new SignatureV4({ service: 'execute-api', region: options.region, credentials: options.credentials, sha256: Hash.bind(null, 'sha256') });
  const signed = await signer.sign({
    method: request.method,
    protocol: base.protocol,
    hostname: base.hostname,
    ...(base.port ? { port: Number(base.port) } : {}),
    path,
    query: request.query ?? {},
    headers: { host: base.host, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  }, options.now ? { signingDate: options.now() } : {});
  const url = new URL(path, base);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  const headers = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name, String(value)]));
  // fetch sets Host itself (to the same value) and refuses to be given one.
  delete headers.host;
  return { url: url.toString(), method: request.method, headers, body };
}

export async function sendAdminRequest(options: AdminClientOptions, request: AdminRequest): Promise<AdminResponse> {
  const signed = await signAdminRequest(options, request);
  const response = await fetch(signed.url, { method: signed.method, headers: signed.headers, ...(signed.body === undefined ? {} : { body: signed.body }) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, headers: response.headers, body };
}
