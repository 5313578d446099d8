import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/db/keys';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { newAccount, newAccounts, walkList } from '../support/resources';
import type { Account } from '../support/resources';

let api: LocalApi;
let alice: Account;
let bob: Account;
let serial = 0;
const nextSn = () => `SN-${Date.now().toString(36)}-${serial++}`;

beforeAll(async () => {
  api = await startLocalApi();
  [alice, bob] = await Promise.all([newAccount(api, 'alice'), newAccount(api, 'bob')]);
});
afterAll(() => api?.close());

const bind = (account: Account, body: Record<string, unknown>) => api.request('POST', '/api/devices', { token: account.token, body });
const devices = async (account: Account) => (await api.request('GET', '/api/devices', { token: account.token })).body;

describe('POST /api/devices', () => {
  it('binds a device to the caller and returns it with the mac upper-case', async () => {
    const sn = nextSn();
    const response = await bind(alice, { sn, mac: 'aa:bb:cc:0d:1e:2f', productModel: 'Captions Glass 2' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      sn,
      userId: alice.userId,
      mac: 'AA:BB:CC:0D:1E:2F',
      productModel: 'Captions Glass 2',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
    expect(await devices(alice)).toContainEqual(response.body);
  });

  it('binding your own device again answers 200 with the original createdAt and the new details', async () => {
    const sn = nextSn();
    const first = await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    api.clock.advance(3600);
    const again = await bind(alice, { sn, mac: '00:11:22:33:44:66', productModel: 'Glass Pro' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, mac: '00:11:22:33:44:66', productModel: 'Glass Pro' });
    const listed = (await devices(alice)).filter((device: any) => device.sn === sn);
    expect(listed).toEqual([again.body]);
  });

  it('refuses a serial bound to another account with 400 code 1 and leaves the owner unchanged', async () => {
    const sn = nextSn();
    const owned = await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    const stolen = await bind(bob, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ code: 1, error: 'DEVICE_BOUND_ELSEWHERE' });
    expect(await devices(alice)).toContainEqual(owned.body);
    expect((await devices(bob)).map((device: any) => device.sn)).not.toContain(sn);
  });

  it.each([
    ['a missing sn', { mac: '00:11:22:33:44:55', productModel: 'Glass' }, 'body.sn'],
    ['an sn with a slash', { sn: 'a/b', mac: '00:11:22:33:44:55', productModel: 'Glass' }, 'body.sn'],
    ['an sn of 65 characters', { sn: 'x'.repeat(65), mac: '00:11:22:33:44:55', productModel: 'Glass' }, 'body.sn'],
    ['an empty sn', { sn: '', mac: '00:11:22:33:44:55', productModel: 'Glass' }, 'body.sn'],
    ['a mac with five pairs', { sn: 'ok', mac: '00:11:22:33:44', productModel: 'Glass' }, 'body.mac'],
    ['a mac with dashes', { sn: 'ok', mac: '00-11-22-33-44-55', productModel: 'Glass' }, 'body.mac'],
    ['a mac with a non-hex digit', { sn: 'ok', mac: '00:11:22:33:44:5G', productModel: 'Glass' }, 'body.mac'],
    ['a blank productModel', { sn: 'ok', mac: '00:11:22:33:44:55', productModel: '   ' }, 'body.productModel'],
    ['a productModel of 101 characters', { sn: 'ok', mac: '00:11:22:33:44:55', productModel: 'm'.repeat(101) }, 'body.productModel'],
    ['a numeric sn', { sn: 12345, mac: '00:11:22:33:44:55', productModel: 'Glass' }, 'body.sn'],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, body, path) => {
    const response = await bind(alice, body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
    expect(response.body.details.map((detail: any) => detail.path)).toContain(path);
  });

  it('accepts the longest allowed serial and model', async () => {
    const sn = `${nextSn()}.`.padEnd(64, '_');
    const response = await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: '型'.repeat(100) });
    expect(response.status).toBe(200);
    expect(response.body.sn).toBe(sn);
  });

  it('answers 401 without a token', async () => {
    const response = await api.request('POST', '/api/devices', { body: { sn: nextSn(), mac: '00:11:22:33:44:55', productModel: 'x' } });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 401 });
  });

  it('gives a serial to exactly one of 10 accounts binding it at once', async () => {
    const contenders = await newAccounts(api, 10, 'race');
    const sn = nextSn();
    const results = await Promise.all(contenders.map((account) => bind(account, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' })));
    const winners = results.filter((result) => result.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((result) => result.status !== 200)) {
      expect(loser.status).toBe(400);
      expect(loser.body).toMatchObject({ code: 1, error: 'DEVICE_BOUND_ELSEWHERE' });
    }
    const owner = winners[0]!.body.userId;
    const marker = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.deviceOwner(sn) }));
    expect(marker.Item?.userId).toBe(owner);
    const holders = [];
    for (const account of contenders) if ((await devices(account)).some((device: any) => device.sn === sn)) holders.push(account.userId);
    expect(holders).toEqual([owner]);
  });
});

describe('GET /api/devices', () => {
  it('lists only the caller’s devices, newest binding first, in pages', async () => {
    const carol = await newAccount(api, 'carol');
    const bound: string[] = [];
    for (let index = 0; index < 5; index++) {
      const sn = nextSn();
      expect((await bind(carol, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' })).status).toBe(200);
      bound.unshift(sn);
      api.clock.advance(1);
    }
    const pages = await walkList(api, '/api/devices', carol, 2);
    expect(pages.map((page) => page.body.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.body.map((device: any) => device.sn))).toEqual(bound);
  });

  it('is an empty array for an account without devices, also at /api/v1', async () => {
    const dave = await newAccount(api, 'dave');
    for (const path of ['/api/devices', '/api/v1/devices']) {
      const response = await api.request('GET', path, { token: dave.token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
      expect(response.headers.get('x-next-cursor')).toBeNull();
    }
  });
});

describe('DELETE /api/devices/{sn}', () => {
  it('unbinds a device of the caller, which frees the serial for anyone', async () => {
    const sn = nextSn();
    await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    const response = await api.request('DELETE', `/api/devices/${sn}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: expect.any(String) });
    expect((await devices(alice)).map((device: any) => device.sn)).not.toContain(sn);
    const rebound = await bind(bob, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    expect(rebound.status).toBe(200);
    expect(rebound.body.userId).toBe(bob.userId);
  });

  it('answers 404 for a serial bound to someone else, and the owner keeps it', async () => {
    const sn = nextSn();
    await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    const response = await api.request('DELETE', `/api/devices/${sn}`, { token: bob.token });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 404, error: 'NOT_FOUND' });
    expect((await devices(alice)).map((device: any) => device.sn)).toContain(sn);
  });

  it('answers 404 for a serial nobody bound, and for one unbound already', async () => {
    const sn = nextSn();
    expect((await api.request('DELETE', `/api/devices/${sn}`, { token: alice.token })).status).toBe(404);
    await bind(alice, { sn, mac: '00:11:22:33:44:55', productModel: 'Glass' });
    expect((await api.request('DELETE', `/api/devices/${sn}`, { token: alice.token })).status).toBe(200);
    expect((await api.request('DELETE', `/api/devices/${sn}`, { token: alice.token })).status).toBe(404);
  });

  it('answers 400 for a malformed serial in the path', async () => {
    const response = await api.request('DELETE', `/api/devices/${encodeURIComponent('bad sn!')}`, { token: alice.token });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED' });
  });
});
