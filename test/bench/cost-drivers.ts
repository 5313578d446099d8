import { SEARCH_READ_ITEMS } from '../../shared/db/transcriptions-repository';
import type { RouteId } from '../../shared/routes';
import { READ_FIXTURES, inParallel, seedAccount } from './fixtures';
import type { SeededAccount } from './fixtures';
import type { Account, Bench, RequestSpec } from './harness';
import { BENCH_SOCIAL_IDS } from './harness';
import { nonceHash } from '../../shared/identity/social/nonces';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import type { CreationOptions, RequestOptions } from '../support/software-authenticator';

/**
 * How the cost model (npm run cost) and the capacity budget test call each route: one driver per
 * route id. `prepare` does whatever one call needs first (an account, a code, a record to delete)
 * and is not measured; the call it returns is. A route without a driver is not measured, and
 * test/unit/cost-model.test.ts fails naming it, so a new route needs a driver here and a row
 * in cost/capacity-budget.json, nothing else.
 */
export interface DriverContext {
  bench: Bench;
  /** A typical user (test/bench/fixtures.ts TYPICAL_ACCOUNT): lists return a full first page. */
  typical: SeededAccount;
  /** A new signed-in account (by code), for calls that change or end an account. */
  fresh(label: string): Promise<Account>;
}

export interface CostDriver {
  prepare(context: DriverContext): Promise<RequestSpec>;
}

/**
 * A transcription as the app saves it: about two minutes of speech (~1 500 characters). The
 * text is most of the item, so it sets the write units of a save.
 */
export const TRANSCRIPT_TEXT = Array.from(
  { length: 12 },
  (_, index) => `Part ${index + 1}: thanks everyone for joining, today we go through the quarterly numbers and the plan for the next release.`,
).join(' ');

export const PASSWORD = 'a-Real-passphrase-42';

/** Why support made a change: every /admin change takes one. */
const SUPPORT_REASON = 'Ticket 4711: the owner asked';

let counter = 0;
const unique = (label: string) => `${label}-${process.pid}-${counter++}@example.com`;

/** Sends a code to `target` (not measured) and returns it, as a user would read it from the message. */
async function codeFor(bench: Bench, target: string): Promise<string> {
  // Past the resend cooldown of the code the sign-up just used.
  bench.clock.advance(bench.config.CODE_RESEND_SECONDS + 1);
  await bench.call('POST /api/verify-code/send', { body: { type: 'email', target } });
  return bench.outbox.list(target)[0]!.code;
}

const sessionOf = ({ typical }: DriverContext): RequestSpec => ({ account: typical });

/** A Google credential of a new identity, with a nonce of the service: the body of a sign-in or a link. */
async function googleLinkBody(bench: DriverContext['bench']): Promise<{ idToken: string; nonce: string }> {
  const { nonce } = await bench.call<{ nonce: string }>('POST /api/auth/social/nonce');
  const { idToken } = await bench.standIns.google.issue({ sub: `20000${process.pid}${counter++}`, clientId: BENCH_SOCIAL_IDS.googleClientId, nonce: nonceHash(nonce) });
  return { idToken, nonce };
}

/** Another sign-in of an account by code (not measured): a second session, and its refresh token. */
async function anotherSession(bench: Bench, email: string): Promise<{ refreshToken: string }> {
  const verifyCode = await codeFor(bench, email);
  return bench.call<{ refreshToken: string }>('POST /api/verify-code/verify', { body: { target: email, verifyCode } });
}

/** A new account holding one passkey (made through the API, not measured), and the authenticator that holds it. */
async function passkeyAccount({ bench, fresh }: DriverContext, label: string) {
  const account = await fresh(label);
  const authenticator = new SoftwareAuthenticator({ origin: bench.config.WEBAUTHN_ORIGINS[0]!, synced: true });
  const options = await bench.call<CreationOptions>('POST /api/auth/passkeys/registration-options', { account });
  const passkey = await bench.call<{ passkeyId: string }>('POST /api/auth/passkeys', { account, body: { response: authenticator.create(options) } });
  return { account, authenticator, passkeyId: passkey.passkeyId };
}

let speechSessions = 0;
const speechStartBody = () => ({ provider: 'azure', language: 'en-US', clientSessionId: `00000000-0000-4000-8000-${String(process.pid % 1e6).padStart(6, '0')}${String(speechSessions++).padStart(6, '0')}` });

/** A new account with a speech session started a heartbeat ago (not measured). */
async function liveSpeechSession({ bench, fresh }: DriverContext): Promise<{ account: Account; sessionId: string }> {
  const account = await fresh('speech');
  const { sessionId } = await bench.call<{ sessionId: string }>('POST /api/speech/sessions', { account, body: speechStartBody() });
  bench.clock.advance(bench.config.SPEECH_HEARTBEAT_SECONDS);
  return { account, sessionId };
}

let phones = 0;
/** A fresh mobile number per call (China's range, like the app's users). */
const uniquePhone = () => `+86139${String((process.pid * 1000 + phones++) % 1e8).padStart(8, '0')}`;

export const COST_DRIVERS: Readonly<Partial<Record<RouteId, CostDriver>>> = {
  'GET /api/health': { prepare: async () => ({}) },
  'GET /api/openapi.json': { prepare: async () => ({}) },
  // A code by e-mail; by SMS the same writes, and an SNS message instead of an SES one.
  'POST /api/verify-code/send': { prepare: async () => ({ body: { type: 'email', target: unique('send') } }) },
  // The monthly sign-in of an existing account (a first sign-in also creates the account).
  'POST /api/verify-code/verify': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('verify');
      return { body: { target: account.email, verifyCode: await codeFor(bench, account.email) } };
    },
  },
  'POST /api/auth/login': {
    prepare: async ({ bench }) => {
      const account = await bench.signUp('login', PASSWORD);
      return { body: { email: account.email, password: PASSWORD } };
    },
  },
  'POST /api/auth/register': {
    prepare: async ({ bench }) => {
      const email = unique('register');
      return { body: { email, verifyCode: await codeFor(bench, email), password: PASSWORD } };
    },
  },
  'POST /api/auth/password/reset': {
    prepare: async ({ bench }) => {
      const account = await bench.signUp('reset', PASSWORD);
      return { body: { target: account.email, verifyCode: await codeFor(bench, account.email), newPassword: `new ${PASSWORD}` } };
    },
  },
  // As apps should log out: with the refresh token, which ends that session.
  'POST /api/auth/logout': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('logout');
      const { refreshToken } = await anotherSession(bench, account.email);
      return { account, body: { refreshToken } };
    },
  },
  'POST /api/auth/token/refresh': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('refresh');
      return { body: { refreshToken: (await anotherSession(bench, account.email)).refreshToken } };
    },
  },
  'GET /api/auth/sessions': { prepare: async (context) => sessionOf(context) },
  'POST /api/auth/passkeys/registration-options': { prepare: async ({ fresh }) => ({ account: await fresh('passkey-options') }) },
  'POST /api/auth/passkeys': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('passkey-add');
      const options = await bench.call<CreationOptions>('POST /api/auth/passkeys/registration-options', { account });
      const authenticator = new SoftwareAuthenticator({ origin: bench.config.WEBAUTHN_ORIGINS[0]!, synced: true });
      return { account, body: { response: authenticator.create(options), name: 'iPhone' } };
    },
  },
  'GET /api/auth/passkeys': { prepare: async (context) => ({ account: (await passkeyAccount(context, 'passkey-list')).account }) },
  'PATCH /api/auth/passkeys/{passkeyId}': {
    prepare: async (context) => {
      const { account, passkeyId } = await passkeyAccount(context, 'passkey-rename');
      return { account, pathParameters: { passkeyId }, body: { name: 'Work phone' } };
    },
  },
  'DELETE /api/auth/passkeys/{passkeyId}': {
    prepare: async (context) => {
      const { account, passkeyId } = await passkeyAccount(context, 'passkey-remove');
      return { account, pathParameters: { passkeyId } };
    },
  },
  'POST /api/auth/passkey/options': { prepare: async () => ({}) },
  // The monthly sign-in of an account with a passkey: instead of a code sent and verified.
  'POST /api/auth/passkey/verify': {
    prepare: async (context) => {
      const { authenticator } = await passkeyAccount(context, 'passkey-sign-in');
      const options = await context.bench.call<RequestOptions>('POST /api/auth/passkey/options');
      return { body: { response: authenticator.get(options) } };
    },
  },
  // Two sessions: the caller's and the one it ends.
  'DELETE /api/auth/sessions': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('end-others');
      await anotherSession(bench, account.email);
      return { account };
    },
  },
  'DELETE /api/auth/sessions/{sessionId}': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('end-one');
      await anotherSession(bench, account.email);
      const sessions = await bench.call<{ sessionId: string; current: boolean }[]>('GET /api/auth/sessions', { account });
      return { account, pathParameters: { sessionId: sessions.find((session) => !session.current)!.sessionId } };
    },
  },
  'PATCH /api/users/me': { prepare: async ({ fresh }) => ({ account: await fresh('settings'), body: { timeZone: 'Asia/Shanghai' } }) },
  // Linking a second target to an account made by e-mail: the code is for the new one.
  'PUT /api/users/me/email': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('change-email');
      const email = unique('new-email');
      return { account, body: { email, verifyCode: await codeFor(bench, email) } };
    },
  },
  'PUT /api/users/me/phone': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('link-phone');
      const phone = uniquePhone();
      await bench.call('POST /api/verify-code/send', { body: { type: 'sms', target: phone } });
      return { account, body: { phone, verifyCode: bench.outbox.list(phone)[0]!.code } };
    },
  },
  // The first password of an account made by code (a change also checks the current one: one scrypt more).
  'PUT /api/users/me/password': { prepare: async ({ fresh }) => ({ account: await fresh('password'), body: { newPassword: `first ${PASSWORD}` } }) },
  'GET /api/users/me': { prepare: async (context) => sessionOf(context) },
  // The first page of the typical account's export: profile, devices, sessions and its records and events.
  'GET /api/users/me/export': { prepare: async (context) => sessionOf(context) },
  // The app's open: the typical account's full first page of devices, a week of usage, its settings.
  'GET /api/users/me/summary': { prepare: async (context) => sessionOf(context) },
  // An account with a little of everything: deletion reads and deletes all of it.
  'DELETE /api/users/me': {
    prepare: async ({ bench }) => ({ account: await seedAccount(bench, 'delete', { devices: 1, transcriptions: 5, events: 5 }) }),
  },
  'POST /api/devices': {
    prepare: async ({ fresh }) => {
      const account = await fresh('bind');
      return { account, body: { sn: `CAP-${account.userId}-B`, mac: '00:1A:2B:3C:4D:5E', productModel: 'Captions Glass 2' } };
    },
  },
  'GET /api/devices': { prepare: async (context) => sessionOf(context) },
  'DELETE /api/devices/{sn}': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('unbind');
      const sn = `CAP-${account.userId}-U`;
      await bench.call('POST /api/devices', { account, body: { sn, mac: '00:1A:2B:3C:4D:5F', productModel: 'Captions Glass 2' } });
      return { account, pathParameters: { sn } };
    },
  },
  'POST /api/transcriptions': {
    prepare: async ({ typical }) => ({
      account: typical,
      body: { recordTitle: 'Quarterly review', text: TRANSCRIPT_TEXT, language: 'en-US', durationSeconds: 120 },
    }),
  },
  'GET /api/transcriptions': { prepare: async (context) => sessionOf(context) },
  'GET /api/transcriptions/usage': { prepare: async (context) => sessionOf(context) },
  'GET /api/transcriptions/{id}': {
    prepare: async ({ typical }) => ({ account: typical, ...READ_FIXTURES['GET /api/transcriptions/{id}']!(typical) }),
  },
  'PATCH /api/transcriptions/{id}': {
    prepare: async ({ typical }) => ({ account: typical, pathParameters: { id: String(typical.transcriptionIds[0]) }, body: { recordTitle: 'Renamed' } }),
  },
  'DELETE /api/transcriptions/{id}': {
    prepare: async ({ bench, typical }) => {
      const created = await bench.call<{ transcriptionRecordId: number }>('POST /api/transcriptions', {
        account: typical,
        body: { recordTitle: 'To delete', text: TRANSCRIPT_TEXT, language: 'en-US', durationSeconds: 120 },
      });
      return { account: typical, pathParameters: { id: String(created.transcriptionRecordId) } };
    },
  },
  'POST /api/behavior/login': { prepare: async ({ typical }) => ({ account: typical, body: { location: 'Shanghai, CN' } }) },
  'GET /api/behavior/login': { prepare: async (context) => sessionOf(context) },
  'POST /api/behavior/events': { prepare: async ({ typical }) => ({ account: typical, body: { eventType: 'subtitle_layout', eventValue: 'bottom' } }) },
  // What an app open flushes: half a day of interface choices (the profile's dozen a day, sent twice a day).
  'POST /api/behavior/events/batch': {
    prepare: async ({ typical }) => ({
      account: typical,
      body: {
        events: [
          { eventType: 'subtitle_layout', eventValue: 'bottom' },
          { eventType: 'translation_on', eventValue: 'true' },
          { eventType: 'language_choice', eventValue: 'zh-CN' },
          { eventType: 'voice_provider', eventValue: 'azure' },
          { eventType: 'ambient_sound', eventValue: 'enabled' },
          { eventType: 'subtitle_layout', eventValue: 'top' },
        ],
      },
    }),
  },
  'GET /api/behavior/translation': { prepare: async (context) => sessionOf(context) },
  'GET /api/behavior/voice-provider': { prepare: async (context) => sessionOf(context) },
  'GET /api/behavior/language-choice': { prepare: async (context) => sessionOf(context) },
  'GET /api/behavior/stats': { prepare: async (context) => sessionOf(context) },
  // One of the typical account's devices.
  'GET /api/devices/{sn}': { prepare: async ({ typical }) => ({ account: typical, ...READ_FIXTURES['GET /api/devices/{sn}']!(typical) }) },
  // An app open (docs/sync.md): a device that walked the feed before pulls what changed since, here one edited record.
  'GET /api/transcriptions/changes': {
    prepare: async ({ bench, typical }) => {
      let page = await bench.call<{ cursor: string; hasMore: boolean }>('GET /api/transcriptions/changes', { account: typical, query: { limit: '100' } });
      while (page.hasMore) page = await bench.call('GET /api/transcriptions/changes', { account: typical, query: { limit: '100', cursor: page.cursor } });
      await bench.call('PATCH /api/transcriptions/{id}', { account: typical, pathParameters: { id: String(typical.transcriptionIds[0]) }, body: { recordTitle: 'Edited on the tablet' } });
      return { account: typical, query: { cursor: page.cursor } };
    },
  },
  'POST /api/auth/social/nonce': { prepare: async () => ({}) },
  // The monthly sign-in of an account made by an earlier sign-in with the same identity (not measured).
  'POST /api/auth/apple': {
    prepare: async ({ bench }) => {
      const sub = `000001.bench${counter++}`;
      const signIn = async () => {
        const { nonce } = await bench.call<{ nonce: string }>('POST /api/auth/social/nonce');
        const issued = await bench.standIns.apple.issue({ sub, clientId: BENCH_SOCIAL_IDS.appleClientId, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true, nonce: nonceHash(nonce) });
        return { body: { ...issued, nonce } };
      };
      await bench.call('POST /api/auth/apple', await signIn());
      return signIn();
    },
  },
  'POST /api/auth/google': {
    prepare: async ({ bench }) => {
      const sub = `10000${process.pid}${counter++}`;
      const signIn = async () => {
        const { nonce } = await bench.call<{ nonce: string }>('POST /api/auth/social/nonce');
        const { idToken } = await bench.standIns.google.issue({ sub, clientId: BENCH_SOCIAL_IDS.googleClientId, email: `bench${sub}@gmail.com`, nonce: nonceHash(nonce) });
        return { body: { idToken, nonce } };
      };
      await bench.call('POST /api/auth/google', await signIn());
      return signIn();
    },
  },
  'POST /api/auth/wechat': {
    prepare: async ({ bench }) => {
      const subject = `bench-${process.pid}-${counter++}`;
      const appId = Object.keys(BENCH_SOCIAL_IDS.wechatApps)[0]!;
      await bench.call('POST /api/auth/wechat', { body: { code: bench.standIns.wechat.issue({ appId, subject }).code } });
      return { body: { code: bench.standIns.wechat.issue({ appId, subject }).code } };
    },
  },
  // Apple's consent-revoked for an account made by Sign in with Apple (not measured): its session ends and Apple is unlinked.
  'POST /api/auth/apple/notifications': {
    prepare: async ({ bench }) => {
      const sub = `000002.bench${counter++}`;
      const { nonce } = await bench.call<{ nonce: string }>('POST /api/auth/social/nonce');
      const issued = await bench.standIns.apple.issue({ sub, clientId: BENCH_SOCIAL_IDS.appleClientId, email: `${sub}@privaterelay.appleid.com`, isPrivateEmail: true, nonce: nonceHash(nonce) });
      await bench.call('POST /api/auth/apple', { body: { ...issued, nonce } });
      return { body: await bench.standIns.apple.notification(BENCH_SOCIAL_IDS.appleClientId, { type: 'consent-revoked', sub }) };
    },
  },
  // The support team's admin API (issue 37): rare (a few tickets a day for the whole deployment), each one audit entry more.
  // A lookup of the typical account: its view reads the profile, passkeys, sessions, devices, login failures and usage.
  'GET /admin/users': { prepare: async ({ typical }) => ({ query: { email: typical.email } }) },
  'POST /admin/users/{userId}/sign-out': {
    prepare: async ({ fresh }) => ({ pathParameters: { userId: String((await fresh('admin-sign-out')).userId) }, body: { reason: SUPPORT_REASON } }),
  },
  'POST /admin/users/{userId}/unlock': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('admin-unlock');
      // A wrong password first: there is a failure to clear.
      await bench.invoke('POST /api/auth/login', { body: { email: account.email, password: 'not-the-password-42' } });
      return { pathParameters: { userId: String(account.userId) }, body: { reason: SUPPORT_REASON } };
    },
  },
  'POST /admin/users/{userId}/disable': {
    prepare: async ({ fresh }) => ({ pathParameters: { userId: String((await fresh('admin-disable')).userId) }, body: { reason: SUPPORT_REASON } }),
  },
  'POST /admin/users/{userId}/enable': {
    prepare: async ({ bench, fresh }) => {
      const pathParameters = { userId: String((await fresh('admin-enable')).userId) };
      await bench.call('POST /admin/users/{userId}/disable', { pathParameters, body: { reason: SUPPORT_REASON } });
      return { pathParameters, body: { reason: SUPPORT_REASON } };
    },
  },
  // A ticket asking for more (or fewer) speech minutes: the transaction, then the view as the others answer it.
  'PUT /admin/users/{userId}/speech-limits': {
    prepare: async ({ fresh }) => ({
      pathParameters: { userId: String((await fresh('admin-speech-limits')).userId) },
      body: { dailySeconds: 14_400, monthlySeconds: 216_000, reason: SUPPORT_REASON },
    }),
  },
  // An erasure request for an account like the owner's own deletion measures.
  'DELETE /admin/users/{userId}': {
    prepare: async ({ bench }) => {
      const account = await seedAccount(bench, 'admin-delete', { devices: 1, transcriptions: 5, events: 5 });
      return { pathParameters: { userId: String(account.userId) }, body: { reason: SUPPORT_REASON } };
    },
  },
  'DELETE /admin/devices/{sn}': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('admin-release');
      const sn = `CAP-${account.userId}-R`;
      await bench.call('POST /api/devices', { account, body: { sn, mac: '00:1A:2B:3C:4D:60', productModel: 'Captions Glass 2' } });
      return { pathParameters: { sn }, body: { reason: SUPPORT_REASON } };
    },
  },
  // The first page of an account's trail after a lookup and a sign-out.
  'GET /admin/audit': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('admin-audit');
      const userId = String(account.userId);
      await bench.call('GET /admin/users', { query: { userId } });
      await bench.call('POST /admin/users/{userId}/sign-out', { pathParameters: { userId }, body: { reason: SUPPORT_REASON } });
      return { query: { userId } };
    },
  },
  // The settings screen of a person who linked Google: a list with something in it.
  'GET /api/users/me/identities': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('identities');
      await bench.call('POST /api/users/me/identities/{provider}', { account, pathParameters: { provider: 'google' }, body: await googleLinkBody(bench) });
      return { account };
    },
  },
  // Linking Google from the settings right after a sign-in, and unlinking it (an e-mail stays).
  'POST /api/users/me/identities/{provider}': {
    prepare: async ({ bench, fresh }) => ({ account: await fresh('link'), pathParameters: { provider: 'google' }, body: await googleLinkBody(bench) }),
  },
  'DELETE /api/users/me/identities/{provider}': {
    prepare: async ({ bench, fresh }) => {
      const account = await fresh('unlink');
      await bench.call('POST /api/users/me/identities/{provider}', { account, pathParameters: { provider: 'google' }, body: await googleLinkBody(bench) });
      return { account, pathParameters: { provider: 'google' } };
    },
  },
  // The live channel's ticket: no body.
  'POST /api/realtime/ticket': { prepare: async ({ typical }) => ({ account: typical }) },
  // Speech sessions (docs/speech.md): each on an account of its own (at most two live sessions each).
  'POST /api/speech/sessions': { prepare: async ({ fresh }) => ({ account: await fresh('speech-start'), body: speechStartBody() }) },
  // A renewal a heartbeat into a session, charging that minute.
  'POST /api/speech/sessions/{sessionId}/renew': {
    prepare: async (context) => {
      const { account, sessionId } = await liveSpeechSession(context);
      return { account, pathParameters: { sessionId }, body: { elapsedSeconds: context.bench.config.SPEECH_HEARTBEAT_SECONDS } };
    },
  },
  'POST /api/speech/sessions/{sessionId}/end': {
    prepare: async (context) => {
      const { account, sessionId } = await liveSpeechSession(context);
      return { account, pathParameters: { sessionId }, body: { elapsedSeconds: context.bench.config.SPEECH_HEARTBEAT_SECONDS } };
    },
  },
  'GET /api/speech/quota': { prepare: async ({ typical }) => ({ account: typical }) },
  // An iPhone's APNs token kept on its session (each app launch sends it again).
  'PUT /api/auth/sessions/current/push': { prepare: async ({ typical }) => ({ account: typical, body: { platform: 'apns', token: 'a1'.repeat(32) } }) },
  'DELETE /api/auth/sessions/current/push': { prepare: async ({ typical }) => ({ account: typical }) },
};

/** How many records one search page reads at most, and one more: a history longer than a page. */
const SEARCH_HISTORY_RECORDS = SEARCH_READ_ITEMS + 1;
const searchAccounts = new WeakMap<Bench, Promise<Account>>();

/**
 * An account whose history is longer than one search page: SEARCH_READ_ITEMS + 1 records of the app's size (about
 * 1 500 characters), English and Chinese tags alternating. Made once per run, not measured.
 */
function searchAccount(bench: Bench): Promise<Account> {
  let account = searchAccounts.get(bench);
  if (!account) {
    account = (async () => {
      const owner = await bench.signUp('search');
      await inParallel(SEARCH_HISTORY_RECORDS, 8, async (index) => {
        await bench.call('POST /api/transcriptions', {
          account: owner,
          body: { recordTitle: `Meeting ${index + 1}`, text: TRANSCRIPT_TEXT, language: index % 2 === 0 ? 'en-US' : 'zh-CN', durationSeconds: 120 },
        });
      });
      return owner;
    })();
    searchAccounts.set(bench, account);
  }
  return account;
}

/**
 * Operations priced apart from their route's plain call, because a query parameter changes what
 * one call reads: keyed `<route id>?<parameter>` in the usage profile, and measured, budgeted
 * and priced like a route (the route's function, memory and access log line).
 */
export interface CostVariant {
  route: RouteId;
  driver: CostDriver;
}

export const COST_VARIANTS: Readonly<Record<string, CostVariant>> = {
  // One page of a search (issue 31): it reads a full batch of records (SEARCH_READ_ITEMS), and
  // finds nothing, the page every search of a long history pays; a person with N such batches
  // pays N pages for a search that finds nothing (docs/cost.md).
  'GET /api/transcriptions?q': {
    route: 'GET /api/transcriptions',
    driver: { prepare: async ({ bench }) => ({ account: await searchAccount(bench), query: { q: 'dosage', limit: '20' } }) },
  },
};

/** The route whose function serves `operation` (a route id, or a variant's id). */
export const routeOfOperation = (operation: string): string => COST_VARIANTS[operation]?.route ?? operation;
