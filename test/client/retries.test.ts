import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../client/src/index';
import type { NewTranscription } from '../../client/src/index';
import { route } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import type { LocalApi } from '../support/local-api';
import { signedInClient, testClient, useServersBehindFaultProxy } from './support';

/** Retries that never double, against the real local server through a fault-injecting proxy. */
let api: LocalApi;
let proxy: FaultProxy;
useServersBehindFaultProxy((servers) => ({ api, proxy } = servers));

const saveRecord = route('POST', '/api/transcriptions');
const me = route('GET', '/api/users/me');
const bind = route('POST', '/api/devices');
const record = (title: string): NewTranscription => ({ recordTitle: title, text: 'Good morning, everyone.', language: 'en-US', durationSeconds: 95 });

async function usage(client: Awaited<ReturnType<typeof signedInClient>>['client']) {
  const [totals, list] = await Promise.all([client.api.GET('/transcriptions/usage', { params: { query: { days: 7 } } }), client.api.GET('/transcriptions')]);
  return { totalUsage: totals.data!.totalUsage, records: list.data!.length };
}

describe('saving a record', () => {
  it('counts it once when the answer is lost after the service stored it', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.loseAnswer(saveRecord, 1);
    const saved = await client.transcriptions.create(record('Lost answer'));
    const posts = proxy.seen.filter(saveRecord);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(saved.recordTitle).toBe('Lost answer');
    expect(await usage(client)).toEqual({ totalUsage: 95, records: 1 });
  });

  it('counts it once when the app restarts after every answer was lost and saves the same record again', async () => {
    const { client, storage } = await signedInClient(api, proxy.url);
    proxy.loseAnswer(saveRecord, Infinity);
    await expect(client.transcriptions.create(record('Saved before the crash'))).rejects.toBeInstanceOf(NetworkError);
    proxy.heal();
    const restarted = testClient(proxy.url, { storage });
    await restarted.transcriptions.create(record('Saved before the crash'));
    expect(new Set(proxy.seen.filter(saveRecord).map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(await usage(restarted)).toEqual({ totalUsage: 95, records: 1 });
    // Confirmed: the same record saved again is a new save.
    await restarted.transcriptions.create(record('Saved before the crash'));
    expect(await usage(restarted)).toEqual({ totalUsage: 190, records: 2 });
  });

  it('sends the caller’s Idempotency-Key when one is given', async () => {
    const { client } = await signedInClient(api, proxy.url);
    await client.transcriptions.create(record('Mine'), { idempotencyKey: 'app-key-1' });
    await client.transcriptions.create(record('Mine'), { idempotencyKey: 'app-key-1' });
    expect(proxy.seen.filter(saveRecord).map((request) => request.headers['idempotency-key'])).toEqual(['app-key-1', 'app-key-1']);
    expect(await usage(client)).toEqual({ totalUsage: 95, records: 1 });
  });

  it('retries 503 and 429 with backoff, honouring Retry-After', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.answer(saveRecord, 503, 2);
    proxy.answer(saveRecord, 429, 1, { 'Retry-After': '1' });
    const started = Date.now();
    await client.transcriptions.create(record('Throttled'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(proxy.count(saveRecord)).toBe(4);
    expect(await usage(client)).toEqual({ totalUsage: 95, records: 1 });
  });

  it('does not wait for a Retry-After beyond its cap, and gives up after its attempts', async () => {
    const { client } = await signedInClient(api, proxy.url);
    proxy.answer(saveRecord, 429, 1, { 'Retry-After': '3600' });
    await expect(client.transcriptions.create(record('Later'))).rejects.toMatchObject({ status: 429, retryAfterSeconds: 3600 });
    expect(proxy.count(saveRecord)).toBe(1);
    proxy.answer(me, 503);
    await expect(client.users.me()).rejects.toMatchObject({ status: 503 });
    expect(proxy.count(me)).toBe(4);
  });

  it('does not retry other 4xx answers, and throws them as ApiError', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const refused = await client.transcriptions.create({ ...record('Bad'), language: 'english' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 400, error: 'VALIDATION_FAILED', code: 400 });
    expect((refused as ApiError).details?.[0]?.path).toBe('body.language');
    expect(proxy.count(saveRecord)).toBe(1);
  });
});

describe('requests without idempotency support', () => {
  it('a GET is retried after a lost answer', async () => {
    const { client, session } = await signedInClient(api, proxy.url);
    proxy.loseAnswer(me, 1);
    expect((await client.users.me()).userId).toBe(session.userId);
    expect(proxy.count(me)).toBe(2);
  });

  it('a POST that takes no Idempotency-Key is not sent again once it may have reached the service', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const device = { sn: `CG2-${Date.now()}`, mac: '3C:71:BF:4A:92:1E', productModel: 'Caption Glasses 2' };
    proxy.loseAnswer(bind, 1);
    await expect(client.api.POST('/devices', { body: device })).rejects.toBeInstanceOf(NetworkError);
    expect(proxy.count(bind)).toBe(1);
    expect(proxy.seen.filter(bind)[0]!.headers['idempotency-key']).toBeUndefined();
    proxy.answer(bind, 503, 1);
    expect((await client.api.POST('/devices', { body: { ...device, sn: `${device.sn}-2` } })).response.status).toBe(503);
    expect(proxy.count(bind)).toBe(2);
    // Throttled: refused before any work, so it is sent again.
    proxy.answer(bind, 429, 1, { 'Retry-After': '0' });
    expect((await client.api.POST('/devices', { body: { ...device, sn: `${device.sn}-3` } })).response.status).toBe(200);
    expect(proxy.count(bind)).toBe(4);
  });

  it('a POST that writes nothing (x-writes-nothing: the passkey options) is sent again after a lost answer or a 503', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const signInOptions = route('POST', '/api/auth/passkey/options');
    proxy.loseAnswer(signInOptions, 1);
    proxy.answer(signInOptions, 503, 1, { 'Retry-After': '0' });
    const { data } = await client.api.POST('/auth/passkey/options');
    expect(data!.rpId).toBe('localhost');
    expect(proxy.count(signInOptions)).toBe(3);
    // A passkey sign-in whose options' answer was lost still reaches the platform's call.
    proxy.loseAnswer(signInOptions, 1);
    const asked: unknown[] = [];
    await expect(
      client.auth.signInWithPasskey(async (options) => {
        asked.push(options);
        throw new Error('cancelled by the person');
      }),
    ).rejects.toThrow('cancelled by the person');
    expect(asked).toHaveLength(1);
  });

  it('every operation is reachable, typed, through client.api with the client’s token', async () => {
    const { client } = await signedInClient(api, proxy.url);
    const patched = await client.api.PATCH('/users/me', { body: { timeZone: 'Asia/Shanghai' } });
    expect(patched.data?.timeZone).toBe('Asia/Shanghai');
    const sessions = await client.api.GET('/auth/sessions');
    expect(sessions.data?.[0]?.clientName).toBe('client test');
    expect(proxy.seen.filter(route('GET', '/api/auth/sessions'))[0]!.headers.authorization).toMatch(/^Bearer /);
  });
});
