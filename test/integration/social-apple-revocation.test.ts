import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as revokeAppleTokensJob } from '../../functions/jobs/revoke-apple-tokens';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { APPLE_REVOCATION_LIMIT_DAYS } from '../../shared/db/apple-revocations-repository';
import { deleteAccountForSupport } from '../../shared/admin/admin-service';
import { keys } from '../../shared/db/keys';
import { InvocationMetrics } from '../../shared/ports/metrics';
import type { ServiceContext } from '../../shared/service-context';
import { signIn, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { appleSignIn, useSocialApi, uniqueSubject } from '../support/social';

/**
 * Deleting an account revokes its Apple token at Apple (issue 38, App Store Review Guideline
 * 5.1.1(v)): the deletion records the revocation in its own transaction and answers without
 * calling Apple; the job revoke-apple-tokens calls the Apple stand-in
 * (infra/local/provider-stand-ins.ts) until it answers 200, or gives up after the limit of days
 * with a metric. Through the local server and DynamoDB Local.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
useSocialApi((servers) => ({ api, standIns } = servers));
const sub = uniqueSubject;
afterEach(() => standIns.apple.failRevocations(0));

const runJob = () => revokeAppleTokensJob.withContext(api.context)(undefined, { getRemainingTimeInMillis: () => 120_000 });
const metric = (name: string) => api.metrics.summary().find((total) => total.name === name)?.value ?? 0;

async function revocationOf(userId: number, subject: string): Promise<Record<string, unknown> | undefined> {
  const result = await api.db.client.send(new GetCommand({ TableName: api.db.tableName, Key: keys.appleRevocation(userId, subject), ConsistentRead: true }));
  return result.Item;
}

/** An account signed up with Apple, and the refresh token Apple (the stand-in) issued for it. */
async function appleAccount(): Promise<{ userId: number; token: string; subject: string; appleToken: string }> {
  const subject = sub('apple');
  const before = new Set(standIns.apple.liveRefreshTokens.keys());
  const signedIn = await appleSignIn(api, standIns, { sub: subject, email: `${subject}@privaterelay.appleid.com`, isPrivateEmail: true });
  expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
  const issued = [...standIns.apple.liveRefreshTokens.keys()].filter((token) => !before.has(token));
  expect(issued).toHaveLength(1);
  return { userId: signedIn.body.userId, token: signedIn.body.token, subject, appleToken: issued[0]! };
}

describe('deleting an account with Apple', () => {
  it('records the revocation with the deletion, answers without Apple, and the job revokes the token at Apple', async () => {
    const account = await appleAccount();
    // Apple failing while the person deletes: the answer is the same and takes no call to Apple.
    standIns.apple.failRevocations(1_000);
    const revokedBefore = standIns.apple.revoked.length;
    const deleted = await api.request('DELETE', '/api/users/me', { token: account.token });
    expect(deleted.status).toBe(200);
    expect(standIns.apple.revoked.length).toBe(revokedBefore);
    const recorded = await revocationOf(account.userId, account.subject);
    expect(recorded).toMatchObject({ userId: account.userId, subject: account.subject, clientId: 'com.example.captions', attempts: 0 });
    // Sealed as it was stored at sign-in: Apple's token itself is nowhere in the table.
    expect(JSON.stringify(recorded)).not.toContain(account.appleToken);
    // The account's partition is gone; the revocation is outside it.
    const partition = await api.db.client.send(
      new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.userPartition(account.userId) } }),
    );
    expect(partition.Items).toEqual([]);

    standIns.apple.failRevocations(0);
    const revokedCount = metric('AppleTokensRevoked');
    const run = await runJob();
    expect(run.revoked).toBeGreaterThanOrEqual(1);
    expect(standIns.apple.revoked).toContain(account.appleToken);
    expect(standIns.apple.liveRefreshTokens.has(account.appleToken)).toBe(false);
    expect(await revocationOf(account.userId, account.subject)).toBeUndefined();
    expect(metric('AppleTokensRevoked')).toBeGreaterThan(revokedCount);
  });

  it('retries after Apple answers 5xx, and then succeeds', async () => {
    const account = await appleAccount();
    expect((await api.request('DELETE', '/api/users/me', { token: account.token })).status).toBe(200);
    // Every pending revocation of this file's table is tried by a run: fail them all this once.
    standIns.apple.failRevocations(1_000);
    const failed = await runJob();
    expect(failed.failed).toBeGreaterThanOrEqual(1);
    expect(standIns.apple.liveRefreshTokens.has(account.appleToken)).toBe(true);
    expect(await revocationOf(account.userId, account.subject)).toMatchObject({ attempts: 1, lastOutcome: 'refused' });

    standIns.apple.failRevocations(0);
    await runJob();
    expect(standIns.apple.revoked).toContain(account.appleToken);
    expect(standIns.apple.liveRefreshTokens.has(account.appleToken)).toBe(false);
    expect(await revocationOf(account.userId, account.subject)).toBeUndefined();
  });

  it('gives up after the limit of days with a metric (the alarm), leaving nothing behind', async () => {
    const account = await appleAccount();
    expect((await api.request('DELETE', '/api/users/me', { token: account.token })).status).toBe(200);
    standIns.apple.failRevocations(1_000);
    await runJob();
    expect(await revocationOf(account.userId, account.subject)).toMatchObject({ attempts: 1 });

    const abandoned = metric('AppleRevocationsAbandoned');
    // Just before the limit: still tried again, still kept.
    api.clock.advance(APPLE_REVOCATION_LIMIT_DAYS * 86_400 - 3_600);
    await runJob();
    expect(await revocationOf(account.userId, account.subject)).toMatchObject({ attempts: 2 });
    expect(metric('AppleRevocationsAbandoned')).toBe(abandoned);
    // Past it: given up, counted, and the sealed token goes.
    api.clock.advance(2 * 3_600);
    const run = await runJob();
    expect(run.abandoned).toBeGreaterThanOrEqual(1);
    expect(metric('AppleRevocationsAbandoned')).toBeGreaterThan(abandoned);
    expect(await revocationOf(account.userId, account.subject)).toBeUndefined();
    expect(standIns.apple.liveRefreshTokens.has(account.appleToken)).toBe(true);
  });

  it("records it the same way when support deletes the account (deleteAccountForSupport, the owner's path)", async () => {
    const account = await appleAccount();
    const app = api.context;
    const ctx: ServiceContext = {
      config: app.config,
      clock: app.clock,
      db: app.db,
      keys: () => app.keys(),
      providerSecrets: () => app.providerSecrets(),
      codeSender: app.codeSender,
      speech: app.speech,
      log: app.logging.logger(),
      metrics: new InvocationMetrics(),
      remainingTimeMs: () => 60_000,
    };
    await deleteAccountForSupport(ctx, account.userId);
    expect(await revocationOf(account.userId, account.subject)).toMatchObject({ userId: account.userId, attempts: 0 });
    await runJob();
    expect(standIns.apple.revoked).toContain(account.appleToken);
    expect(await revocationOf(account.userId, account.subject)).toBeUndefined();
  });

  it('records nothing for an account without Apple', async () => {
    const other = await signIn(api, uniqueEmail('no-apple'));
    expect((await api.request('DELETE', '/api/users/me', { token: other.token })).status).toBe(200);
    const pending = await api.db.client.send(
      new QueryCommand({
        TableName: api.db.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :me)',
        ExpressionAttributeValues: { ':pk': keys.appleRevocation(0, '').PK, ':me': `USER#${other.userId}#` },
      }),
    );
    expect(pending.Items).toEqual([]);
  });
});
