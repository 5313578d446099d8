import createFetchClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import { apiErrorOf } from './errors';
import { IDEMPOTENT_POSTS, POSTS_WRITING_NOTHING, PUBLIC_OPERATIONS } from './generated/operations';
import type { paths } from './generated/api';
import type { KeyJournal } from './idempotency';
import { sendWithRetries } from './retry';
import type { Fetch, RetryPolicy } from './retry';
import type { Session } from './session';

export type Api = Client<paths>;
/**
 * How one request may be retried beyond what the OpenAPI document says: `repeatable`, a POST whose
 * body makes a repeat harmless (a speech session's `clientSessionId`, its cumulative
 * `elapsedSeconds`); `finalErrors`, error names answered at once though their status is retried.
 */
export interface RequestOptions {
  repeatable?: boolean;
  finalErrors?: readonly string[];
}
/** One JSON request under /api: `request('PATCH', '/transcriptions/7', body, { 'If-Match': '"3"' })`. */
export type ApiRequest = (method: string, path: string, body?: unknown, headers?: Record<string, string>, options?: RequestOptions) => Promise<Response>;

const ORIGIN = /^[a-z][a-z\d+.-]*:\/\/[^/]+/i;

/** 401s about a credential in the body, which a refreshed token would not change. */
const BODY_CREDENTIAL_REFUSALS: unknown[] = ['PASSKEY_INVALID', 'SOCIAL_CREDENTIAL_INVALID'];

/**
 * Whether a 401 is about the token (the authorizer's, or one without a name): not a passkey
 * (`POST /auth/passkeys`) or a provider's token (`POST /users/me/identities/{provider}`) the
 * service could not verify.
 */
function refusesTheToken(text: string): boolean {
  try {
    return !BODY_CREDENTIAL_REFUSALS.includes((JSON.parse(text) as { error?: unknown } | null)?.error);
  } catch {
    return true;
  }
}

/** `/transcriptions/{id}` matches `/transcriptions/42`. */
const matches = (template: string, path: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);

/**
 * The fetch every request of the client goes through, `client.api` included: the Bearer token
 * (refreshed first when close to expiry; after a 401 one refresh and one retry with the same body),
 * the retries of retry.ts, and an Idempotency-Key for each logical POST that takes one (the
 * caller's key wins), kept across retries, the 401 retry and a replay after a restart.
 */
export function createTransport(baseUrl: string, fetch: Fetch, session: Session, journal: KeyJournal, policy: RetryPolicy): { api: Api; request: ApiRequest } {
  const apiBase = `${baseUrl.replace(/\/+$/, '')}/api`;
  const basePath = apiBase.replace(ORIGIN, '');

  async function send(request: Request, options: RequestOptions = {}): Promise<Response> {
    const method = request.method.toUpperCase();
    const path = (request.url.replace(ORIGIN, '').split('?')[0] ?? '').slice(basePath.length);
    const isPublic = PUBLIC_OPERATIONS.some((operation) => operation.startsWith(`${method} `) && matches(operation.slice(method.length + 1), path));
    const idempotent = method === 'POST' && IDEMPOTENT_POSTS.some((template) => matches(template, path));
    const headers = new Headers(request.headers);
    const body = method === 'GET' || method === 'HEAD' ? undefined : await request.text();
    const logical = `${method} ${path} ${body ?? ''}`;
    const journaled = idempotent && !headers.has('Idempotency-Key');
    if (journaled) headers.set('Idempotency-Key', await journal.keyFor(logical));
    // The refresh may be sent again: within the grace window the service answers the same next token.
    const repeatable = options.repeatable === true || method !== 'POST' || idempotent || path === '/auth/token/refresh' || POSTS_WRITING_NOTHING.some((template) => matches(template, path));
    const init: RequestInit = { method, headers, body, signal: request.signal };
    const go = () => sendWithRetries(fetch, request.url, init, repeatable, policy, options.finalErrors);

    let response: Response;
    if (isPublic) response = await go();
    else {
      let token = await session.accessToken();
      headers.set('Authorization', `Bearer ${token}`);
      response = await go();
      if (response.status === 401) {
        const text = await response.text().catch(() => '');
        if (refusesTheToken(text)) {
          token = await session.afterUnauthorized(token);
          headers.set('Authorization', `Bearer ${token}`);
          response = await go();
        } else response = new Response(text, { status: 401, headers: response.headers });
      }
    }
    // Stored, or refused for a reason a repeat would meet again: the next such POST is a new one.
    if (journaled && response.status < 500 && ![401, 408, 429].includes(response.status)) await journal.settle(logical);
    return response;
  }

  const api = createFetchClient<paths>({ baseUrl: apiBase, fetch: send });
  const request: ApiRequest = (method, path, body, headers, options) =>
    send(new Request(apiBase + path, { method, headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }), options);
  return { api, request };
}

/** An operation's data, or its error as an ApiError. */
export async function dataOf<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw await apiErrorOf(response, error ?? null);
  return data as T;
}
