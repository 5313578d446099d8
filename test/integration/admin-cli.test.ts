import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runAdminCli } from '../../infra/tools/admin';
import { signIn, startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * Issue 37: the support CLI (`npm run admin`, infra/tools/admin.ts) end to end against the local
 * server, as support runs it without `--url`: the local admin credentials, its requests signed by
 * the SDK's signer and verified by the server's SigV4 check. (Its signing for a stage's URL is
 * verified offline in test/unit/sigv4-check.test.ts.)
 */
let api: LocalApi;
let env: Record<string, string>;

beforeAll(async () => {
  api = await startLocalApi();
  env = { PORT: new URL(api.url).port, AWS_REGION: api.config.AWS_REGION };
});
afterAll(() => api?.close());

async function admin(args: string[], extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCli(args, { out: (line) => out.push(line), err: (line) => err.push(line), env: { ...env, ...extraEnv } });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('npm run admin against the local server', () => {
  it('finds, signs out, unlocks, releases a serial and reads the audit trail, with its exit codes', async () => {
    const person = await signIn(api, uniqueEmail('cli'));
    const sn = `CAP-CLI-${person.userId}`;
    expect((await api.request('POST', '/api/devices', { token: person.token, body: { sn, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2' } })).status).toBe(200);

    const found = await admin(['find', '--email', person.email!]);
    expect(found.code, found.err).toBe(EXIT.ok);
    expect(found.out).toContain(`user ${person.userId}  ACTIVE`);
    expect(found.out).toContain(sn);
    const json = await admin(['find', '--sn', sn, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ userId: person.userId, devices: [{ sn }] });

    expect((await admin(['sign-out', '--user', String(person.userId), '--reason', 'Ticket 4711: lost phone'])).code).toBe(EXIT.ok);
    expect((await api.request('GET', '/api/transcriptions', { token: person.token })).status).toBe(401);
    expect((await admin(['unlock', '--user', String(person.userId), '--reason', 'Ticket 4712: locked out'])).code).toBe(EXIT.ok);
    const released = await admin(['release-device', '--sn', sn, '--reason', 'Ticket 4715: sold']);
    expect(released.code, released.err).toBe(EXIT.ok);
    expect(released.out).toBe(`Serial ${sn} released from user ${person.userId}.`);

    const audit = await admin(['audit', '--user', String(person.userId)]);
    expect(audit.code).toBe(EXIT.ok);
    for (const text of ['DELETE /admin/devices/{sn}', 'POST /admin/users/{userId}/unlock', 'POST /admin/users/{userId}/sign-out', 'Ticket 4711: lost phone', 'arn:aws:iam::000000000000:user/local-admin']) {
      expect(audit.out).toContain(text);
    }

    // Not found, a change without a reason (refused before sending), forbidden (another secret).
    expect((await admin(['find', '--email', uniqueEmail('nobody')])).code).toBe(EXIT.notFound);
    const noReason = await admin(['disable', '--user', String(person.userId)]);
    expect(noReason.code).toBe(EXIT.error);
    expect(noReason.err).toContain('--reason');
    expect((await admin(['find', '--user', String(person.userId)], { LOCAL_ADMIN_SECRET_ACCESS_KEY: 'not-the-local-secret' })).code).toBe(EXIT.forbidden);
    // The account's own speech limits: set, shown by find with what is used, refused when the month is below the day.
    const limited = await admin(['speech-limits', '--user', String(person.userId), '--daily', '1800', '--monthly', '36000', '--reason', 'Ticket 4716: conference']);
    expect(limited.code, limited.err).toBe(EXIT.ok);
    expect(limited.out).toMatch(/speech {5}today \d{4}-\d{2}-\d{2} 0 of 1800 s {3}month \d{4}-\d{2} 0 of 36000 s {3}limits set by support {3}live sessions 0/);
    expect((await admin(['find', '--user', String(person.userId)])).out).toContain('0 of 1800 s');
    const below = await admin(['speech-limits', '--user', String(person.userId), '--daily', '1800', '--monthly', '60', '--reason', 'Ticket 4716']);
    expect(below.code).toBe(EXIT.error);
    expect(below.err).toContain('400 VALIDATION_FAILED');
    const noSeconds = await admin(['speech-limits', '--user', String(person.userId), '--daily', '1800', '--reason', 'Ticket 4716']);
    expect(noSeconds.err).toContain('--monthly');
    expect((await admin(['audit', '--user', String(person.userId)])).out).toContain('PUT /admin/users/{userId}/speech-limits');

    // Deletion asks for confirmation; without a terminal and without --yes nothing is deleted.
    expect((await admin(['delete', '--user', String(person.userId), '--reason', 'Ticket 4714'])).code).toBe(EXIT.error);
    expect((await admin(['find', '--user', String(person.userId)])).code).toBe(EXIT.ok);
  });
});
