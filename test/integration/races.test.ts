import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountExistsError } from '../../shared/errors';
import { keys } from '../../shared/db/keys';
import { createUser } from '../../shared/db/users-repository';
import { LOGIN_LOCK_POLICY } from '../../shared/identity/account-service';
import type { UserRecord } from '../../shared/db/users-repository';
import { latestCode, signIn, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { ApiResponse, LocalApi } from '../support/local-api';

/**
 * Concurrency: many requests at once on one target, code or account. The rules hold because the
 * writes are conditional, not because requests happen to arrive one by one.
 */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api?.close());

const typeOf = (target: string) => (target.includes('@') ? 'email' : 'sms');
const send = (target: string) => api.request('POST', '/api/verify-code/send', { body: { type: typeOf(target), target } });
const verify = (target: string, verifyCode: string) => api.request('POST', '/api/verify-code/verify', { body: { target, verifyCode } });

async function codeFor(target: string): Promise<string> {
  expect((await send(target)).status).toBe(200);
  return latestCode(api, target);
}

const statuses = (responses: ApiResponse[]) => responses.map((response) => `${response.status} ${response.body?.error ?? 'ok'}`);
const countOf = (responses: ApiResponse[], status: number) => responses.filter((response) => response.status === status).length;

const getItem = async (key: Record<string, string>) =>
  (await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: key, ConsistentRead: true }))).Item;

/** Every user profile item holding this e-mail or phone. */
async function profilesOf(field: 'email' | 'phone', value: string) {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await api.db.client.send(
      new ScanCommand({
        TableName: api.db.tableName,
        FilterExpression: 'SK = :profile AND #field = :value',
        ExpressionAttributeNames: { '#field': field },
        ExpressionAttributeValues: { ':profile': 'PROFILE', ':value': value },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

describe('races', () => {
  it('20 parallel sends to one target: exactly one 200, the rest CODE_COOLDOWN', async () => {
    const email = uniqueEmail('parallel-send');
    const responses = await Promise.all(Array.from({ length: 20 }, () => send(email)));
    expect(countOf(responses, 200), statuses(responses).join(', ')).toBe(1);
    for (const response of responses.filter((r) => r.status !== 200)) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 1, error: 'CODE_COOLDOWN' });
    }
    expect(api.outbox.list(email)).toHaveLength(1);
    // The refused sends left nothing behind: one send counted for the day, and the code works.
    const today = api.clock.now().toISOString().slice(0, 10);
    expect((await getItem(keys.codeDay(email, today)))?.sends).toBe(1);
    expect((await verify(email, latestCode(api, email))).status).toBe(200);
  });

  it('8 parallel verifies of one correct code for a new target: one success, one user', async () => {
    const phone = uniquePhone();
    const code = await codeFor(phone);
    const responses = await Promise.all(Array.from({ length: 8 }, () => verify(phone, code)));
    expect(countOf(responses, 200), statuses(responses).join(', ')).toBe(1);
    for (const response of responses.filter((r) => r.status !== 200)) expect(response.body).toMatchObject({ code: 1, error: 'CODE_INVALID' });
    expect(await profilesOf('phone', phone)).toHaveLength(1);
  });

  it('8 parallel verifies of one correct code for an existing account: one success', async () => {
    const email = uniqueEmail('parallel-verify');
    const first = await signIn(api, email);
    api.clock.advance(61);
    const code = await codeFor(email);
    api.clock.reset();
    const responses = await Promise.all(Array.from({ length: 8 }, () => verify(email, code)));
    expect(countOf(responses, 200), statuses(responses).join(', ')).toBe(1);
    expect(responses.find((r) => r.status === 200)!.body.userId).toBe(first.userId);
    for (const response of responses.filter((r) => r.status !== 200)) expect(response.body).toMatchObject({ code: 1, error: 'CODE_INVALID' });
  });

  it('50 parallel wrong guesses: never more than 5 counted, and the code is void afterwards', async () => {
    const email = uniqueEmail('parallel-guess');
    const code = await codeFor(email);
    const wrongCodes = Array.from({ length: 50 }, (_, index) => String((Number(code) + 1 + index) % 1_000_000).padStart(6, '0'));
    const responses = await Promise.all(wrongCodes.map((guess) => verify(email, guess)));
    for (const response of responses) {
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(['CODE_INVALID', 'CODE_ATTEMPTS_EXCEEDED']).toContain(response.body.error);
    }
    // Only the guesses counted as tries 1..4 may still say "invalid"; the rest found the code void.
    expect(responses.filter((response) => response.body.error === 'CODE_INVALID').length).toBeLessThanOrEqual(4);
    expect((await getItem(keys.currentCode(email)))?.attempts).toBe(5);
    const right = await verify(email, code);
    expect(right.status).toBe(400);
    expect(right.body).toMatchObject({ code: 1, error: 'CODE_ATTEMPTS_EXCEEDED' });
  });

  it('20 parallel registrations of one e-mail with the same valid code: one 200, one user', async () => {
    const email = uniqueEmail('parallel-register');
    const verifyCode = await codeFor(email);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        api.request('POST', '/api/auth/register', { body: { email, verifyCode, password: `racing password ${index}` } }),
      ),
    );
    expect(countOf(responses, 200), statuses(responses).join(', ')).toBe(1);
    for (const response of responses.filter((r) => r.status !== 200)) {
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(['CODE_INVALID', 'ACCOUNT_EXISTS']).toContain(response.body.error);
    }
    const profiles = await profilesOf('email', email);
    expect(profiles).toHaveLength(1);
    expect(profiles[0]!.userId).toBe(responses.find((r) => r.status === 200)!.body.userId);
    expect((await getItem(keys.identity('email', email)))?.userId).toBe(profiles[0]!.userId);
  });

  it('20 parallel createUser calls with distinct ids for one e-mail: one succeeds, 19 AccountExistsError, one marker', async () => {
    const email = uniqueEmail('parallel-create');
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const baseId = 9_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
    const users: UserRecord[] = Array.from({ length: 20 }, (_, index) => ({
      userId: baseId + index,
      email,
      phone: null,
      passwordHash: null,
      tokenVersion: 0,
      timeZone: null,
      locale: null,
      createdAt: now,
      updatedAt: now,
    }));
    const results = await Promise.allSettled(users.map((user) => createUser(api.db, user)));
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(fulfilled, rejected.map((result) => String(result.reason)).join('; ')).toHaveLength(1);
    expect(rejected).toHaveLength(19);
    for (const result of rejected) expect(result.reason).toBeInstanceOf(AccountExistsError);

    const winner = users[results.findIndex((result) => result.status === 'fulfilled')]!;
    const marker = await getItem(keys.identity('email', email));
    expect(marker?.userId).toBe(winner.userId);
    const profiles = await profilesOf('email', email);
    expect(profiles.map((profile) => profile.userId)).toEqual([winner.userId]);
  });

  it('12 parallel wrong passwords for one account get at most 5 password checks; the rest and then the right password are locked out', async () => {
    const email = uniqueEmail('burst');
    const registered = await api.request('POST', '/api/auth/register', {
      body: { email, verifyCode: await codeFor(email), password: 'the right passphrase' },
    });
    expect(registered.status).toBe(200);

    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, index) => api.request('POST', '/api/auth/login', { body: { email, password: `guess number ${index}` } })),
    );
    // Each check is reserved before scrypt runs, so parallel guesses cannot outrun the lock.
    const checked = burst.filter((response) => response.body.error === 'INVALID_CREDENTIALS');
    const locked = burst.filter((response) => response.body.error === 'LOGIN_LOCKED');
    expect(checked.length, statuses(burst).join(', ')).toBe(LOGIN_LOCK_POLICY.maxFailures);
    expect(locked).toHaveLength(12 - LOGIN_LOCK_POLICY.maxFailures);

    const right = await api.request('POST', '/api/auth/login', { body: { email, password: 'the right passphrase' } });
    expect(right.body.error).toBe('LOGIN_LOCKED');
  });
});
