import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, createClient } from '../../client/src/index';
import type { ExportPage } from '../../client/src/index';
import { latestOutboxCode } from './dev-outbox-code';

/**
 * `npm run export -- --email <address> [--out FILE]`: a person's whole export from a running
 * local server (`npm start`, http://localhost:8080 or PORT; API_URL overrides) as one JSON file.
 * It signs in with a code read from the dev outbox, as seed does, so it needs local mode; then
 * it walks GET /api/users/me/export with the app client and joins the pages:
 * `{profile, devices, sessions, transcriptions, events}`.
 */
export async function exportAccount(baseUrl: string, email: string): Promise<Omit<ExportPage, 'nextCursor'>> {
  const base = baseUrl.replace(/\/$/, '');
  const client = createClient({ baseUrl: base, clientName: 'npm run export' });
  const sendCode = () => client.auth.sendCode({ type: 'email', target: email });
  await sendCode().catch(async (error: unknown) => {
    // A code sent within the last minute (by the app, or a previous run): wait it out once.
    if (!(error instanceof ApiError) || error.error !== 'CODE_COOLDOWN' || !error.retryAfterSeconds) throw error;
    console.error(`A code was sent to ${email} recently: sending another in ${error.retryAfterSeconds} s.`);
    await new Promise((done) => setTimeout(done, error.retryAfterSeconds! * 1000));
    await sendCode();
  });
  await client.auth.verifyCode({ target: email, verifyCode: await latestOutboxCode(base, email) });
  let first: Pick<ExportPage, 'profile' | 'devices' | 'sessions'> = {};
  const transcriptions: ExportPage['transcriptions'] = [];
  const events: ExportPage['events'] = [];
  for await (const page of client.users.export()) {
    if (page.profile) first = { profile: page.profile, devices: page.devices, sessions: page.sessions };
    transcriptions.push(...page.transcriptions);
    events.push(...page.events);
  }
  await client.auth.logout();
  return { ...first, transcriptions, events };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const email = option('--email');
  if (!email) {
    console.error('usage: npm run export -- --email <address> [--out FILE]');
    process.exit(2);
  }
  const out = option('--out') ?? `export-${email.replace(/[^\w.@-]/g, '_')}.json`;
  const baseUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
  exportAccount(baseUrl, email).then(
    (whole) => {
      writeFileSync(out, `${JSON.stringify(whole, null, 2)}\n`);
      console.log(`wrote ${out}: ${whole.transcriptions.length} records, ${whole.events.length} events`);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
