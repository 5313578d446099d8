// zod/mini, like shared/config.ts: the mini API tree-shakes to a few kilobytes where classic zod
// adds about 70 KB. Functions import these schemas as types only; the OpenAPI generator builds them.
import * as z from 'zod/mini';
import { GENERAL_EVENT_TYPES, LOGIN_EVENT_TYPE } from './event-types';
import type { GeneralEventType } from './event-types';
import { ISO_SECONDS_PATTERN } from '../ports/clock';

/**
 * The resources and bodies the API answers with, once. Each handler names its route's schema
 * (`response` in shared/http/endpoint.ts, by its export name here: the function carries the name
 * and the type, not the schema), and the type of what it answers is the schema's output,
 * exactly: the domain's typed mappers (`publicUser`, `publicRecord` ...) copy the fields listed
 * here and nothing else, so an internal field (a password hash, a token version, a sort key) can
 * never reach a client, and a result with a field more or less does not compile. Nothing parses
 * an answer at run time; test/integration/response-contract.test.ts holds every route's answer to
 * the OpenAPI document (GET /api/openapi.json), which is generated from these same schemas; an
 * `id` makes a schema a named component there.
 *
 * The checks (types, integer ids, the timestamp shape) are what the document states; `format` and
 * `description` are annotations (JSON Schema treats `format` as one too).
 *
 * Every definition is a `/* @__PURE__ *\/` call of a builder: building a schema (and registering
 * it for the document) is a side effect esbuild would otherwise keep, so a module importing one
 * schema would build every schema at init. This way only the schemas used are bundled and built.
 */
type ComponentMeta = {
  id: string;
  description: string;
  examples?: unknown[];
};
const built = <T>(build: () => T): T => build();
const named = <T extends z.ZodMiniType>(build: () => T, meta: ComponentMeta): T => {
  const schema = build();
  z.globalRegistry.add(schema, meta);
  return schema;
};


/** ISO 8601 UTC at second precision (contract section 2). */
export const timestampSchema = /* @__PURE__ */ built(() =>
  z.string().check(
    z.regex(ISO_SECONDS_PATTERN),
    z.meta({ format: 'date-time', description: 'ISO 8601 UTC, second precision', examples: ['2026-01-29T10:30:00Z'] }),
  ),
);

/** Identifiers: positive integers, unique per kind, never reused (contract section 2). */
const idSchema = (description: string) => z.int().check(z.positive(), z.describe(description));

const userFields = /* @__PURE__ */ built(() => ({
  userId: idSchema('The user'),
  phone: z.nullable(z.string().check(z.regex(/^\+[1-9]\d{1,14}$/), z.meta({ description: 'E.164', examples: ['+8613800138000'] }))),
  email: z.nullable(z.string().check(z.meta({ format: 'email', examples: ['alice@example.com'] }))),
}));

/** Seed 2.1, as `GET /api/users/me` answers it, with the person's own settings. */
export const userSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      ...userFields,
      timeZone: z.nullable(z.string()).check(
        z.meta({ description: 'IANA time zone: usage is counted by calendar day in it. Null: UTC', examples: ['Asia/Shanghai'] }),
      ),
      locale: z.nullable(z.string()).check(z.meta({ description: 'Default language of the codes sent to this account. Null: the request’s', examples: ['zh-CN'] })),
      createdAt: timestampSchema,
      updatedAt: timestampSchema,
    }),
  {
    id: 'User',
    description: 'The signed-in user (seed 2.1). `phone` is null for accounts created by e-mail and `email` for accounts created by phone.',
  },
);

/** Seed 4.4: the new user, without a token. */
export const registeredUserSchema = /* @__PURE__ */ named(() => z.object({ ...userFields, createdAt: timestampSchema }), {
  id: 'RegisteredUser',
  description: 'A user just registered (seed 4.4). No token: sign in with the password or a code.',
});

const tokenFields = /* @__PURE__ */ built(() => ({
  token: z.string().check(z.describe('JWT (HS256) for `Authorization: Bearer <token>`; valid for `expiresIn` seconds (TOKEN_TTL_MS, default 24 h)')),
  refreshToken: z.string().check(
    z.describe('Opaque; keep it safe. Exchange it at `POST /api/auth/token/refresh` for a new token before or when this one expires; every refresh returns a new one'),
  ),
  expiresIn: z.int().check(z.minimum(0), z.describe('Seconds until `token` expires')),
}));

const sessionFields = /* @__PURE__ */ built(() => ({ ...tokenFields, ...userFields }));

/** Seed 4.3: password login answers the token and the user, without the envelope. */
export const sessionSchema = /* @__PURE__ */ named(() => z.object(sessionFields), {
  id: 'Session',
  description: 'A token, the refresh token of the new session, and the user it signs in (seed 4.3).',
});

/** A refresh: the next access token and the next refresh token of the same session. */
export const refreshedSessionSchema = /* @__PURE__ */ named(() => z.object({ ...tokenFields, userId: idSchema('The user') }), {
  id: 'RefreshedSession',
  description: 'A new token and the next refresh token of the session; the refresh token sent is spent.',
});

/** One signed-in session, as the person sees it in the app's list of their devices. */
export const activeSessionSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      sessionId: z.string().check(z.meta({ description: 'Names the session in `DELETE /api/auth/sessions/{sessionId}`', examples: ['p3Xq9vK2T0a8YbWcLm4N1g'] })),
      clientName: z.string().check(z.meta({ description: 'The `clientName` given at sign-in, else the User-Agent (64 characters), else "unknown"', examples: ['Pixel 8 · Captions 2.3'] })),
      createdAt: timestampSchema,
      lastUsedAt: timestampSchema,
      current: z.boolean().check(z.describe('True for the session of the token that asked')),
    }),
  { id: 'ActiveSession', description: 'A signed-in session: one app on one device.' },
);


const envelopeFields = /* @__PURE__ */ built(() => ({
  code: z.literal(0).check(z.describe('0: success (seed 7)')),
  message: z.string(),
}));

/** The seed's `{code: 0, message}` envelope of operations that return no resource. */
export const successSchema = /* @__PURE__ */ named(() => z.object(envelopeFields), {
  id: 'Success',
  description: 'The success envelope of operations that return no resource.',
});

/** Seed 4.2: code sign-in answers the envelope, the token and the user. */
export const codeSessionSchema = /* @__PURE__ */ named(() => z.object({ ...envelopeFields, ...sessionFields }), {
  id: 'CodeSession',
  description: 'The success envelope with a token, the refresh token of the new session and the user it signs in (seed 4.2); the account is created when the target has none.',
});

/** Sign in with Apple, Google or WeChat (docs/social-sign-in.md): as a code sign-in, and whether it made the account. */
export const socialSessionSchema = /* @__PURE__ */ named(
  () => z.object({ ...envelopeFields, ...sessionFields, isNewUser: z.boolean().check(z.describe('True when this sign-in created the account')) }),
  {
    id: 'SocialSession',
    description: 'As `POST /api/verify-code/verify` answers (token, refresh token of the new session, the user), and whether the account was created by this sign-in.',
  },
);

/** A nonce for a social sign-in: its SHA-256 (hex) goes to the provider, the nonce itself to the service. */
export const socialNonceSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      nonce: z.string().check(z.describe('Give the provider its SHA-256 (lower-case hex); send this value itself with the sign-in. Usable once')),
      expiresIn: z.int().check(z.positive(), z.describe('Seconds the nonce stays valid')),
    }),
  { id: 'SocialNonce', description: 'A nonce signed by the service, valid 10 minutes and usable once.' },
);

/** A ticket for the live channel (docs/realtime.md): the WebSocket address with the ticket in its query. */
export const realtimeTicketSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      url: z.string().check(z.describe('The WebSocket address to open, the ticket in its query (`wss://.../?ticket=...` on AWS, `ws://localhost:8080/realtime?ticket=...` locally)')),
      ticket: z.string().check(z.describe('Usable once, within 60 seconds, by this session only; already in `url`')),
      expiresAt: timestampSchema,
    }),
  { id: 'RealtimeTicket', description: 'A single-use ticket that opens the live channel for the caller\'s session: valid 60 seconds, spent by the connection it opens.' },
);

/** An Apple, Google or WeChat identity linked to the account. */
export const linkedIdentitySchema = /* @__PURE__ */ named(
  () =>
    z.object({
      provider: z.enum(['apple', 'google', 'wechat']),
      linkedAt: timestampSchema,
      email: z.nullable(z.string().check(z.describe('The e-mail the provider gave, if any (for Apple possibly a private relay address)'))),
      givenName: z.nullable(z.string().check(z.describe('Apple only: the name given at the first authorization'))),
      familyName: z.nullable(z.string()),
    }),
  { id: 'LinkedIdentity', description: 'A sign-in provider linked to the account.' },
);

/** A password set or changed from a session: fresh tokens only when the caller's own had to be replaced. */
export const passwordChangedSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      ...envelopeFields,
      token: z.optional(z.string().check(z.describe('Only when the token sent came from before sessions: it ended, use this one'))),
      refreshToken: z.optional(z.string()),
      expiresIn: z.optional(z.int().check(z.minimum(0))),
    }),
  { id: 'PasswordChanged', description: 'The success envelope; every other session has ended, the caller’s goes on.' },
);

/** "Sign out my other devices". */
export const endedSessionsSchema = /* @__PURE__ */ named(
  () => z.object({ ...envelopeFields, ended: z.int().check(z.minimum(0), z.describe('How many live sessions were ended')) }),
  { id: 'EndedSessions', description: 'The success envelope with the number of sessions ended.' },
);

/** Seed 2.2. */
export const deviceSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      sn: z.string().check(z.describe('Serial number, the device identifier')),
      userId: idSchema('The owner'),
      mac: z.string().check(z.regex(/^[0-9A-F]{2}(?::[0-9A-F]{2}){5}$/), z.meta({ description: 'Upper-case', examples: ['00:1A:2B:3C:4D:5E'] })),
      productModel: z.string(),
      createdAt: timestampSchema,
    }),
  { id: 'Device', description: 'A device bound to the user (seed 2.2).' },
);

/** The id an app gives a record itself: a UUID in canonical lower-case form. */
const clientRecordIdSchema = /* @__PURE__ */ built(() =>
  z.string().check(z.meta({ format: 'uuid', description: 'The id the app chose for the record (a UUID); null when none', examples: ['6f1c2a9e-5b7d-4c1e-9f0a-6d2b8e4c7a15'] })),
);

/** 1 on create, one more on every change; the record's ETag and what If-Match names. */
const revisionSchema = /* @__PURE__ */ built(() => z.int().check(z.positive(), z.describe('1 on create, one more on every change; send it back as `If-Match: "<revision>"`')));

const languageSchema = /* @__PURE__ */ built(() => z.string().check(z.meta({ description: '<language>-<REGION>', examples: ['en-US', 'zh-CN'] })));

/** Seed 2.3. */
export const transcriptionRecordSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      transcriptionRecordId: idSchema('The record'),
      userId: idSchema('The owner'),
      recordTitle: z.string(),
      text: z.string(),
      textLength: z.int().check(z.minimum(0), z.describe('Length of `text` in Unicode code points')),
      language: languageSchema,
      durationSeconds: z.int().check(z.minimum(0)),
      startedAt: timestampSchema.check(z.describe('When the recording began; `createdAt` unless the app said otherwise. Usage counts on its day')),
      createdAt: timestampSchema,
      updatedAt: z.nullable(timestampSchema),
      clientRecordId: z.nullable(clientRecordIdSchema),
      revision: revisionSchema,
    }),
  {
    id: 'TranscriptionRecord',
    description:
      'A transcription record (seed 2.3); `updatedAt` is null until it is edited. `clientRecordId` and `revision` are for apps that sync (docs/sync.md): the id the app chose, and the version to send back as `If-Match`.',
  },
);

/** What is left of a deleted record: no content, kept RECORD_TOMBSTONE_RETENTION_SECONDS (docs/sync.md). */
export const recordTombstoneSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      transcriptionRecordId: idSchema('The record that was deleted'),
      clientRecordId: z.nullable(clientRecordIdSchema),
      revision: revisionSchema.check(z.describe('The revision of the deletion: one more than the record’s last')),
      deletedAt: timestampSchema,
    }),
  { id: 'RecordTombstone', description: 'A deleted record: its ids, the revision of the deletion and when it happened; never its content.' },
);

/** One entry of the change feed (GET /api/transcriptions/changes): a record at its latest state, or its deletion. */
export const recordChangeSchema = /* @__PURE__ */ named(
  () =>
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('upsert'), record: transcriptionRecordSchema }),
      z.object({ type: z.literal('delete'), ...recordTombstoneSchema.shape }),
    ]),
  {
    id: 'RecordChange',
    description: '`upsert`: the record as `GET /api/transcriptions/{id}` answers it, at its latest state; `delete`: the record was deleted (its tombstone).',
  },
);

/** A page of the change feed. */
export const changeFeedPageSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      changes: z.array(recordChangeSchema).check(z.describe('In commit order, each record at most once, at most `limit` and at most 1 MB of JSON')),
      cursor: z.string().check(z.describe('Where the next call continues: keep it (also when `hasMore` is false) and pass it as `?cursor=`')),
      hasMore: z.boolean().check(z.describe('false: the device is up to date')),
    }),
  { id: 'ChangeFeedPage', description: 'The changes of the caller’s records since the cursor (docs/sync.md).' },
);

/** A record a search found: the record and where it matched (GET /api/transcriptions?q=). */
export const foundTranscriptionRecordSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      ...transcriptionRecordSchema.shape,
      match: z.optional(
        z.object({
          field: z.enum(['text', 'recordTitle']).check(z.describe('`text` when the text holds a hit, else `recordTitle`')),
          snippet: z.string().check(z.describe('At most 160 code points of that field around its first hit (the whole field when it is shorter)')),
        }).check(z.describe('Only with `q`: where the record matched')),
      ),
    }),
  { id: 'FoundTranscriptionRecord', description: 'A transcription record; with `q`, also where it matched.' },
);

/** Seed 2.4, in seconds (contract section 4). */
export const usageSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      userId: idSchema('The user'),
      totalUsage: z.int().check(z.minimum(0), z.describe('Lifetime usage in seconds (sum of `durationSeconds`)')),
      dailyUsage: z.array(
        z.object({
          date: z
            .string()
            .check(z.regex(/^\d{4}-\d{2}-\d{2}$/), z.meta({ format: 'date', description: 'Calendar date of the records’ `startedAt` in the account’s time zone (UTC while none is set)' })),
          usage: z.int().check(z.minimum(0), z.describe('Seconds')),
        }),
      ).check(z.describe('Newest first; only days with usage, within the last `days` days')),
    }),
  { id: 'Usage', description: 'Usage in seconds (seed 2.4).' },
);

/** Seed 2.5, as listed. */
export const behaviorEventSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      eventId: idSchema('The event'),
      // Stored events carry only these types; the enum is stated for the document, not re-checked.
      eventType: z.string().check(z.meta({ enum: [LOGIN_EVENT_TYPE, ...GENERAL_EVENT_TYPES] })),
      eventValue: z.nullable(z.string()).check(z.describe('Null for login events')),
      location: z.nullable(z.string()).check(z.describe('Set for login events, null for others')),
      createdAt: timestampSchema,
      occurredAt: z.string().check(
        z.regex(ISO_SECONDS_PATTERN),
        z.meta({ format: 'date-time', description: 'When it happened, as the app sent it (second precision); `createdAt` for events sent without one and for those recorded before apps could send it' }),
      ),
    }),
  { id: 'BehaviorEvent', description: 'A behavior event (seed 2.5).' },
);

/** Seed 2.6. */
export const behaviorStatsSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      loginCount: z.int().check(z.minimum(0)),
      events: z.array(
        z.object({
          eventType: z.enum(GENERAL_EVENT_TYPES),
          count: z.int().check(z.positive()),
          // Never null for the general types (every one carries a value); the stored aggregate's type allows it.
          lastValue: z.nullable(z.string()).check(z.describe('The value of the event of this type with the latest `occurredAt`')),
        }),
      ).check(z.describe('One entry per general event type recorded at least once, in the order of seed 2.5')),
    }),
  { id: 'BehaviorStats', description: 'Behavior statistics (seed 2.6).' },
);

/** What the app restores at open: one general type's last value and when that event happened. */
const settingSchema = /* @__PURE__ */ built(() =>
  z.object({
    value: z.string().check(z.describe('The `eventValue` of the event of this type with the latest `occurredAt`')),
    occurredAt: timestampSchema,
  }),
);

/** Speech sessions (issue 44, docs/speech.md): the providers a deployment may offer. */
export const speechProviderSchema = /* @__PURE__ */ built(() =>
  z.enum(['azure', 'deepgram', 'aws', 'tencent']).check(z.describe('The speech provider: Azure Speech, Deepgram, Amazon Transcribe or Tencent Cloud ASR')),
);

const quotaPeriodSchema = (date: string) =>
  z.object({
    date: z.string().check(z.describe(date)),
    usedSeconds: z.int().check(z.minimum(0), z.describe('Seconds charged to speech sessions started in it')),
    limitSeconds: z.int().check(z.minimum(0), z.describe('The account’s limit (SPEECH_DAILY_SECONDS / SPEECH_MONTHLY_SECONDS unless support set its own)')),
    remainingSeconds: z.int().check(z.minimum(0)),
    resetsAt: timestampSchema.check(z.describe('When it starts again: the next local midnight (or the first of the next month), in UTC')),
  });

/** GET /api/speech/quota, and the `quota` of every speech answer and of the summary. */
export const speechQuotaSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      day: quotaPeriodSchema('Today in the account’s time zone (UTC while none is set), YYYY-MM-DD'),
      month: quotaPeriodSchema('This month in the account’s time zone, YYYY-MM'),
      sessionMaxSeconds: z.int().check(z.positive(), z.describe('The longest one session may last (SPEECH_SESSION_MAX_SECONDS)')),
      liveSessions: z.int().check(z.minimum(0), z.describe('Sessions started and neither ended nor expired')),
    }),
  { id: 'SpeechQuota', description: 'The speech minutes of the account: today’s and this month’s, in its own time zone.' },
);

const speechCredentialFields = /* @__PURE__ */ built(() => ({
  credential: z.object({
    kind: z.enum(['token', 'url']).check(z.describe('`token`: send `value` as `connect.headers` shows; `url`: `value` is the signed address to open')),
    value: z.string().check(z.describe('The short-lived credential (never the provider’s key)')),
    expiresAt: timestampSchema,
    renewAfter: timestampSchema.check(z.describe('Renew (or take the next renewal’s credential) by then')),
  }),
  connect: z.object({
    url: z.string().check(z.describe('The provider’s streaming address for the language and rate')),
    headers: z.optional(z.record(z.string(), z.string()).check(z.describe('Headers to send when connecting (`Authorization`)'))),
    region: z.optional(z.string()),
  }),
  limits: z.object({
    maxSeconds: z.int().check(z.minimum(0), z.describe('The most this session may be charged: the smallest of the day’s and month’s remainder and the session maximum')),
    heartbeatSeconds: z.int().check(z.positive(), z.describe('Renew every this many seconds while streaming; a session not renewed within two is expired')),
  }),
  quota: speechQuotaSchema,
}));

/** POST /api/speech/sessions. */
export const speechSessionSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      sessionId: z.string().check(z.describe('The session (a UUID)')),
      provider: speechProviderSchema,
      language: z.string(),
      startedAt: timestampSchema,
      serverTime: timestampSchema.check(z.describe('The service’s clock now, which the metering goes by')),
      ...speechCredentialFields,
    }),
  { id: 'SpeechSession', description: 'A speech session: the short-lived credential, where to connect, its limits and the quota.' },
);

/** POST /api/speech/sessions/{sessionId}/renew. */
export const speechRenewalSchema = /* @__PURE__ */ named(() => z.object(speechCredentialFields), {
  id: 'SpeechRenewal',
  description: 'The time since the last renewal is charged; a credential valid for at least another heartbeat.',
});

/** POST /api/speech/sessions/{sessionId}/end. */
export const speechSessionEndSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      sessionId: z.string(),
      chargedSeconds: z.int().check(z.minimum(0), z.describe('What the session was charged in all')),
      quota: speechQuotaSchema,
    }),
  { id: 'SpeechSessionEnd', description: 'The settled session.' },
);

/** A speech session as the export lists it. */
export const exportedSpeechSessionSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      sessionId: z.string(),
      provider: speechProviderSchema,
      language: z.string(),
      startedAt: timestampSchema,
      endedAt: z.nullable(timestampSchema).check(z.describe('Null while live')),
      chargedSeconds: z.int().check(z.minimum(0)),
      clientRecordId: z.nullable(z.string()).check(z.describe('The record the app said the session produced')),
    }),
  { id: 'ExportedSpeechSession', description: 'A speech session: provider, language, start, charge and the record it produced.' },
);

/** GET /api/users/me/summary: the reads an app makes when it opens, in one answer (issue 29). */
export const userSummarySchema = /* @__PURE__ */ named(
  () =>
    z.object({
      user: userSchema,
      devices: z.object({
        items: z.array(deviceSchema).check(z.describe('The first page (up to 20) of `GET /api/devices`, newest binding first')),
        hasMore: z.boolean().check(z.describe('More devices follow: `GET /api/devices?cursor=` with `nextCursor` lists them')),
        nextCursor: z.nullable(z.string()).check(z.describe('The `X-Next-Cursor` of `GET /api/devices?limit=20`; null without more')),
      }),
      usage: z.object({
        totalUsage: z.int().check(z.minimum(0), z.describe('Lifetime usage in seconds')),
        today: z.object({
          date: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/), z.meta({ format: 'date', description: 'Today in the account’s time zone (UTC while none is set)' })),
          usage: z.int().check(z.minimum(0), z.describe('Seconds used today (0 without records)')),
        }),
        dailyUsage: z.array(
          z.object({
            date: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/), z.meta({ format: 'date' })),
            usage: z.int().check(z.minimum(0), z.describe('Seconds')),
          }),
        ).check(z.describe('As `GET /api/transcriptions/usage?days=7`: newest first, only days with usage, today and the 6 days before')),
      }),
      settings: z.object(Object.fromEntries(GENERAL_EVENT_TYPES.map((eventType) => [eventType, z.optional(settingSchema)])) as Record<GeneralEventType, z.ZodMiniOptional<typeof settingSchema>>).check(
        z.describe('Per general event type ever recorded, its last value; types never recorded are absent'),
      ),
      speech: speechQuotaSchema.check(z.describe('As `GET /api/speech/quota`')),
    }),
  {
    id: 'UserSummary',
    description: 'What the app shows when it opens: the user, the first devices, the last week of usage and the settings to restore, in one request.',
  },
);

export const healthSchema = /* @__PURE__ */ named(() => z.object({ status: z.literal('ok'), time: timestampSchema }), {
  id: 'Health',
  description: 'The service is up and can read its table (otherwise 503).',
});

const base64urlText = (description: string) => z.string().check(z.meta({ description, contentEncoding: 'base64url' }));
const transportsSchema = /* @__PURE__ */ built(() =>
  z.array(z.string()).check(z.describe('How the platform reaches the authenticator (`internal`, `hybrid`, `usb` ...), as it reported them')),
);

/** A passkey of the account, as its owner sees it in the app (issue 30). */
export const passkeySchema = /* @__PURE__ */ named(
  () =>
    z.object({
      passkeyId: z.string().check(z.meta({ description: 'Names the passkey in `PATCH` and `DELETE /api/auth/passkeys/{passkeyId}`', examples: ['Qm9vay1pZC1vZi1hLXBhc3NrZXktZm9yLWV4YW1wbGU'] })),
      name: z.string().check(z.meta({ description: 'The name given when it was added or renamed', examples: ['iPhone 15 · iCloud Keychain'] })),
      createdAt: timestampSchema,
      lastUsedAt: z.nullable(timestampSchema).check(z.describe('The last sign-in with it; null until the first')),
      backedUp: z.boolean().check(z.describe('Synced by the platform (iCloud Keychain, Google Password Manager ...): survives the loss of the phone')),
      transports: transportsSchema,
    }),
  { id: 'Passkey', description: 'A passkey that signs in to the account without a code.' },
);

/** What `navigator.credentials.create({publicKey})` takes, as JSON (`PublicKeyCredential.parseCreationOptionsFromJSON`). */
export const passkeyCreationOptionsSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      challenge: base64urlText('Signed by the service; valid for 5 minutes, for this account, once'),
      rp: z.object({ name: z.string(), id: z.string().check(z.describe('WEBAUTHN_RP_ID')) }),
      user: z.object({ id: base64urlText('The user handle: opaque, the same for every passkey of the account'), name: z.string(), displayName: z.string() }),
      pubKeyCredParams: z.array(z.object({ alg: z.int().check(z.describe('COSE algorithm')), type: z.literal('public-key') })),
      timeout: z.int().check(z.describe('Milliseconds')),
      attestation: z.literal('none'),
      excludeCredentials: z.array(z.object({ id: base64urlText('A credential id'), type: z.literal('public-key'), transports: z.optional(z.array(z.string())) })).check(
        z.describe('The account’s passkeys: the platform does not make a second one on the same authenticator'),
      ),
      authenticatorSelection: z.object({
        residentKey: z.literal('required'),
        requireResidentKey: z.literal(true),
        userVerification: z.literal('required'),
      }),
    }),
  { id: 'PasskeyCreationOptions', description: 'Options for the platform’s passkey creation: a discoverable credential, user verification required.' },
);

/** What `navigator.credentials.get({publicKey})` takes, as JSON (`PublicKeyCredential.parseRequestOptionsFromJSON`). */
export const passkeyRequestOptionsSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      challenge: base64urlText('Signed by the service; valid for 5 minutes, once'),
      rpId: z.string().check(z.describe('WEBAUTHN_RP_ID')),
      timeout: z.int().check(z.describe('Milliseconds')),
      userVerification: z.literal('required'),
    }),
  {
    id: 'PasskeyRequestOptions',
    description: 'Options for the platform’s passkey sign-in. No `allowCredentials`: the platform offers the person’s passkeys, and nothing about accounts is revealed.',
  },
);

/** The OpenAPI document itself: only its version is checked; the rest passes as generated. */
export const openApiDocumentSchema = /* @__PURE__ */ built(() => z.looseObject({ openapi: z.string() }));

/** A page of a person's export (GET /api/users/me/export): a documented, stable shape. */
export const exportPageSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      profile: z.optional(userSchema.check(z.describe('First page only: the account, as `GET /api/users/me` answers it'))),
      devices: z.optional(z.array(deviceSchema).check(z.describe('First page only: every bound device, newest binding first'))),
      sessions: z.optional(z.array(activeSessionSchema).check(z.describe('First page only: the signed-in sessions, as `GET /api/auth/sessions` lists them'))),
      speechSessions: z.optional(z.array(exportedSpeechSessionSchema).check(z.describe('First page only: the speech sessions, newest first'))),
      transcriptions: z.array(transcriptionRecordSchema).check(z.describe('Records with their full text, oldest first, continuing from the previous page')),
      events: z.array(behaviorEventSchema).check(z.describe('After the last record: behavior events, by type, each type oldest first')),
      nextCursor: z.nullable(z.string()).check(z.describe('Pass as `?cursor=` for the next page; null on the last page')),
    }),
  {
    id: 'ExportPage',
    description: 'One page (at most 1 MB of JSON) of everything the service holds about the person that the API shows them; no hash, token material or internal key.',
  },
);

/** The lists (contract section 2: plain arrays, newest first). */
export const deviceListSchema = /* @__PURE__ */ built(() => z.array(deviceSchema));
export const foundTranscriptionListSchema = /* @__PURE__ */ built(() => z.array(foundTranscriptionRecordSchema));
export const behaviorEventListSchema = /* @__PURE__ */ built(() => z.array(behaviorEventSchema));
export const activeSessionListSchema = /* @__PURE__ */ built(() => z.array(activeSessionSchema));
export const passkeyListSchema = /* @__PURE__ */ built(() => z.array(passkeySchema));
export const linkedIdentityListSchema = /* @__PURE__ */ built(() => z.array(linkedIdentitySchema));

/**
 * The admin API (issue 37, `/admin/...`, IAM-signed): what support sees of an account. Built from
 * an allowlist (shared/admin/admin-service.ts): counts, totals, names and times; never a secret or
 * its hash, a transcript's title or text, an event's value or a login's place.
 */
export const adminUserSchema = /* @__PURE__ */ named(
  () =>
    z.object({
      userId: idSchema('The user'),
      status: z.enum(['active', 'disabled', 'deleting']).check(z.describe('`deleting`: the account ended and its data is being removed; the rest is then null or empty')),
      email: z.nullable(z.string()),
      phone: z.nullable(z.string()),
      createdAt: z.nullable(timestampSchema),
      updatedAt: z.nullable(timestampSchema),
      timeZone: z.nullable(z.string()),
      locale: z.nullable(z.string()),
      disabledAt: z.nullable(timestampSchema),
      signIn: z.object({
        passwordSet: z.boolean(),
        failedAttempts: z.int().check(z.minimum(0), z.describe('Wrong passwords within the lock window')),
        lockedUntil: z.nullable(timestampSchema).check(z.describe('Password login is locked until then; null when not locked')),
        passkeys: z.array(z.object({ name: z.string(), createdAt: timestampSchema, lastUsedAt: z.nullable(timestampSchema) })),
        identities: z
          .array(z.object({ provider: z.enum(['apple', 'google', 'wechat']), linkedAt: timestampSchema, lastUsedAt: timestampSchema }))
          .check(z.describe('Apple, Google and WeChat linked to the account: which and when, never their e-mails or tokens')),
      }),
      devices: z.array(z.object({ sn: z.string(), productModel: z.nullable(z.string()), createdAt: timestampSchema })).check(z.describe('Newest binding first, at most 100')),
      sessions: z.array(z.object({ sessionId: z.string(), clientName: z.string(), createdAt: timestampSchema, lastUsedAt: timestampSchema })).check(z.describe('The live sessions')),
      usage: z.object({ totalSeconds: z.int().check(z.minimum(0)) }),
      speech: z
        .nullable(
          z.object({
            day: quotaPeriodSchema('Today in the account’s time zone (UTC while none is set), YYYY-MM-DD'),
            month: quotaPeriodSchema('This month in the account’s time zone, YYYY-MM'),
            liveSessions: z.int().check(z.minimum(0), z.describe('Speech sessions started and neither ended nor expired')),
            ownLimits: z.boolean().check(z.describe('true: support set this account’s limits (PUT /admin/users/{userId}/speech-limits); false: the deployment’s')),
          }),
        )
        .check(z.describe('Speech minutes used today and this month and the account’s limits; null while the account is being deleted')),
    }),
  { id: 'AdminUser', description: 'An account as support sees it: no secret, no transcript, no event value.' },
);

/** One entry of the admin audit trail (append-only). */
export const adminAuditEntrySchema = /* @__PURE__ */ named(
  () =>
    z.object({
      at: z.string().check(z.meta({ format: 'date-time', description: 'When the request was answered, ISO 8601 with milliseconds' })),
      actor: z.string().check(z.describe('The caller’s IAM ARN (the local admin’s locally)')),
      actorKind: z.string().check(z.describe('`assumed-role`, `user`, `root`, `federated-user` or `local`')),
      operation: z.string().check(z.meta({ examples: ['POST /admin/users/{userId}/disable'] })),
      userId: z.nullable(idSchema('The account acted on, when known')),
      sn: z.nullable(z.string()),
      reason: z.nullable(z.string()),
      status: z.int().check(z.describe('The HTTP status answered')),
      requestId: z.string(),
    }),
  { id: 'AdminAuditEntry', description: 'One /admin request that reached its function.' },
);

/** DELETE /admin/devices/{sn}: the serial, and the account it was taken from. */
export const adminReleasedDeviceSchema = /* @__PURE__ */ named(() => z.object({ sn: z.string(), userId: idSchema('The former owner') }), {
  id: 'AdminReleasedDevice',
  description: 'The serial is free to bind.',
});

export const adminAuditListSchema = /* @__PURE__ */ built(() => z.array(adminAuditEntrySchema));

/**
 * Every non-2xx body (contract section 2), from a handler (shared/http/error-map.ts) or from the
 * gateway (shared/http/gateway-responses.ts). Documentation only: those modules build the bodies.
 */
export const errorBodySchema = /* @__PURE__ */ named(
  () =>
    z.object({
      code: z.int().check(z.describe('1 for rule violations of the seed (wrong code, cooldown ...); otherwise the HTTP status')),
      message: z.string().check(z.describe('For people; may change')),
      error: z.string().check(z.describe('Stable UPPER_SNAKE name of the error, for programs')),
      details: z.optional(
        z.array(z.object({ path: z.string().check(z.meta({ examples: ['body.verifyCode'] })), message: z.string() })).check(
          z.describe('VALIDATION_FAILED: every problem of the request'),
        ),
      ),
      retryAfterSeconds: z.optional(z.int().check(z.positive(), z.describe('With CODE_COOLDOWN, CODE_DAILY_LIMIT and LOGIN_LOCKED; also sent as `Retry-After`'))),
      requestId: z.optional(z.string().check(z.describe('On 5xx answers from a function: quote it when reporting a problem'))),
      current: z.optional(transcriptionRecordSchema.check(z.describe('RECORD_CHANGED: the record as it is now'))),
      tombstone: z.optional(recordTombstoneSchema.check(z.describe('RECORD_DELETED: what is left of the deleted record'))),
      supportedProviders: z.optional(z.array(speechProviderSchema).check(z.describe('LANGUAGE_NOT_SUPPORTED: this deployment’s speech providers that serve the language'))),
      fallbackProviders: z.optional(z.array(speechProviderSchema).check(z.describe('PROVIDER_UNAVAILABLE of a speech session: the other configured providers that serve the language'))),
      resetsAt: z.optional(timestampSchema.check(z.describe('SPEECH_QUOTA_EXHAUSTED: when minutes come back (the next local midnight, or the next month)'))),
    }),
  { id: 'Error', description: 'Every non-2xx answer (contract section 2).' },
);
