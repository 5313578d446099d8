import { describe, expect, it } from 'vitest';
import { checkSignature, LOCAL_ADMIN_ARN } from '../../infra/local/sigv4-check';
import type { ReceivedRequest } from '../../infra/local/sigv4-check';
import { signAdminRequest } from '../../infra/tools/admin-client';
import type { AdminRequest, SignedRequest } from '../../infra/tools/admin-client';

/**
 * Issue 37: the local server's Signature Version 4 check (infra/local/sigv4-check.ts) against
 * requests signed as the support CLI signs them (infra/tools/admin-client.ts), for a stage's URL:
 * what the CLI sends to AWS is verified offline by the local checker with the same credentials.
 */
const credentials = { accessKeyId: 'AKIDEXAMPLESTAGE0001', secretAccessKey: 'stage-secret-for-the-test' };
const region = 'eu-west-1';
const stageUrl = 'https://abc123defg.execute-api.eu-west-1.amazonaws.com/prod/';
const now = new Date('2026-11-26T14:00:00Z');
const options = { baseUrl: stageUrl, region, credentials, now: () => now };

/** What a server receives of a signed request: the path and query of its URL, its headers (with Host). */
function received(signed: SignedRequest, changes: Partial<ReceivedRequest> = {}): ReceivedRequest {
  const url = new URL(signed.url);
  const query: Record<string, string> = Object.fromEntries(url.searchParams);
  const headers = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { method: signed.method, path: url.pathname, query, headers: { ...headers, host: url.host }, body: Buffer.from(signed.body ?? ''), ...changes };
}

const sign = (request: AdminRequest) => signAdminRequest(options, request);
const check = (request: ReceivedRequest, at = now) => checkSignature(request, credentials, region, at);

describe('the local SigV4 check', () => {
  it('accepts what the CLI signs for a stage URL: the stage in the path, the query, the JSON body', async () => {
    const lookup = await sign({ method: 'GET', path: '/admin/users', query: { email: 'a+b@example.com' } });
    expect(new URL(lookup.url).pathname).toBe('/prod/admin/users');
    expect(await check(received(lookup))).toEqual({ ok: true, actorArn: LOCAL_ADMIN_ARN });
    const change = await sign({ method: 'POST', path: '/admin/users/42/disable', body: { reason: 'Ticket 1' } });
    expect(await check(received(change))).toEqual({ ok: true, actorArn: LOCAL_ADMIN_ARN });
  });

  it('refuses another path, method, query or body, a forged body hash, another key or secret, and a stale date', async () => {
    const change = await sign({ method: 'POST', path: '/admin/users/42/disable', body: { reason: 'Ticket 1' } });
    const base = received(change);
    expect(await check({ ...base, path: '/prod/admin/users/43/disable' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await check({ ...base, method: 'DELETE' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await check({ ...base, query: { extra: '1' } })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await check({ ...base, body: Buffer.from('{"reason":"Ticket 2"}') })).toEqual({ ok: false, reason: 'mismatch' });
    // A claimed hash never stands in for the body received.
    expect(await check({ ...base, body: Buffer.from('{}'), headers: { ...base.headers, 'x-amz-content-sha256': base.headers['x-amz-content-sha256']! } })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(await checkSignature(base, { ...credentials, secretAccessKey: 'another' }, region, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(await checkSignature(base, { ...credentials, accessKeyId: 'AKIDOTHER' }, region, now)).toEqual({ ok: false, reason: 'unknown-key' });
    expect(await checkSignature(base, credentials, 'us-east-1', now)).toEqual({ ok: false, reason: 'wrong-scope' });
    expect(await check(base, new Date(now.getTime() + 16 * 60_000))).toEqual({ ok: false, reason: 'stale' });
    expect(await check(base, new Date(now.getTime() + 14 * 60_000))).toEqual({ ok: true, actorArn: LOCAL_ADMIN_ARN });
    const { authorization: _, ...unsigned } = base.headers;
    expect(await check({ ...base, headers: unsigned })).toEqual({ ok: false, reason: 'unsigned' });
    expect(await check({ ...base, headers: { ...base.headers, authorization: 'Bearer a.b.c' } })).toEqual({ ok: false, reason: 'unsigned' });
    expect(await check({ ...base, headers: { ...base.headers, host: 'evil.example.com' } })).toEqual({ ok: false, reason: 'mismatch' });
  });
});
