import { jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { deleteAccount } from '../account-deletion-service';
import { listPasskeys } from '../../db/passkeys-repository';
import { endSessions, readAccountSessions, sessionIdsOf } from '../../db/sessions-repository';
import { findSocialIdentity, findSocialOwner, markEmailDeliverableWrite, unlinkIdentityWrites } from '../../db/social-identities-repository';
import type { SocialIdentityRecord } from '../../db/social-identities-repository';
import { writeAtomically } from '../../db/transactions';
import { findUserAndIdentities, markEmailDeliverable } from '../../db/users-repository';
import type { UserRecord } from '../../db/users-repository';
import { ProviderUnavailableError, SocialCredentialInvalidError, UnauthorizedError } from '../../errors';
import { isoSeconds } from '../../ports/clock';
import type { ServiceContext } from '../../service-context';
import { isAppleRelayAddress } from './apple-client';
import { APPLE_ISSUER } from './id-tokens';
import { providerKeys } from './provider-keys';
import { assertConfigured } from './social-sign-in';

/**
 * Apple's server-to-server notifications (docs/social-sign-in.md, "Apple's notifications"): Apple
 * posts `{payload}`, a JWS signed with the keys of its identity tokens, `iss` Apple, `aud` the
 * client id, and `events` (a JSON text) naming the event `type` and the person (`sub`). Verified
 * strictly (RS256 with Apple's published keys, through the module-scope key set the sign-ins use;
 * `aud` one of APPLE_CLIENT_IDS; `iat` within a day), then:
 *
 * - `consent-revoked`: the person stopped using Sign in with Apple with the app: Apple is unlinked
 *   and every session of the account ends;
 * - `account-delete`: the person deleted their Apple account: the same, and the account is deleted
 *   when Apple was its only way in;
 * - `email-disabled` / `email-enabled`: the private relay address stops (or resumes) forwarding:
 *   it is marked so, and no code is sent to it meanwhile.
 *
 * Anything else, or a person no account is linked to, is acknowledged and changes nothing. Each
 * event is safe to receive twice (Apple retries).
 */
export type AppleNotificationOutcome = 'consent-revoked' | 'account-delete' | 'email-disabled' | 'email-enabled' | 'ignored';

/** How old a notification may be (Apple retries a failed delivery, not for days). */
const MAX_NOTIFICATION_AGE = '1d';
const SKEW_SECONDS = 60;

interface AppleEvent {
  type: string;
  sub: string;
  email: string | null;
}

async function verifiedEvent(ctx: ServiceContext, payload: string): Promise<AppleEvent> {
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(
      payload,
      providerKeys('Apple', `${ctx.config.APPLE_API_URL.replace(/\/$/, '')}/auth/keys`, ctx.config.PROVIDER_KEYS_COOLDOWN_SECONDS),
      {
        algorithms: ['RS256'],
        issuer: APPLE_ISSUER,
        audience: [...ctx.config.APPLE_CLIENT_IDS],
        clockTolerance: SKEW_SECONDS,
        maxTokenAge: MAX_NOTIFICATION_AGE,
        currentDate: ctx.clock.now(),
        requiredClaims: ['iat', 'events'],
      },
    ));
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error;
    throw SocialCredentialInvalidError.because(`apple notification refused: ${(error as Error).message}`);
  }
  let events: unknown = claims.events;
  try {
    // Apple sends `events` as a JSON text.
    if (typeof events === 'string') events = JSON.parse(events);
  } catch {
    throw SocialCredentialInvalidError.because('apple notification refused: events is not JSON');
  }
  const event = events as { type?: unknown; sub?: unknown; email?: unknown } | null;
  if (!event || typeof event.type !== 'string' || typeof event.sub !== 'string' || event.sub === '') {
    throw SocialCredentialInvalidError.because('apple notification refused: events without type or sub');
  }
  return { type: event.type, sub: event.sub, email: typeof event.email === 'string' && event.email !== '' ? event.email.toLowerCase() : null };
}

/** Receives one notification; answers what was done (for the log), or throws SOCIAL_CREDENTIAL_INVALID. */
export async function receiveAppleNotification(ctx: ServiceContext, payload: string): Promise<AppleNotificationOutcome> {
  assertConfigured(ctx, 'apple');
  let event: AppleEvent;
  try {
    event = await verifiedEvent(ctx, payload);
  } catch (error) {
    if (error instanceof SocialCredentialInvalidError) ctx.log.warn('apple notification refused', { reason: typeof error.cause === 'string' ? error.cause : 'unknown' });
    throw error;
  }
  const outcome = await act(ctx, event);
  ctx.log.info('apple notification', { type: event.type, outcome });
  return outcome;
}

async function act(ctx: ServiceContext, event: AppleEvent): Promise<AppleNotificationOutcome> {
  const known = ['consent-revoked', 'account-delete', 'email-disabled', 'email-enabled'] as const;
  const type = known.find((candidate) => candidate === event.type);
  if (!type) return 'ignored';
  const owner = await findSocialOwner(ctx.db, 'apple', event.sub);
  const identity = owner === undefined ? undefined : await findSocialIdentity(ctx.db, owner, 'apple', event.sub);
  if (!identity) return 'ignored';
  if (type === 'email-disabled' || type === 'email-enabled') {
    const deliverable = type === 'email-enabled';
    const email = event.email ?? identity.email;
    await writeAtomically(ctx.db, [markEmailDeliverableWrite(ctx.db, identity, deliverable)]).catch(ignoreGone);
    if (email) await markEmailDeliverable(ctx.db, identity.userId, email, deliverable, isoSeconds(ctx.clock.now()));
    return type;
  }
  const account = await findUserAndIdentities(ctx.db, identity.userId);
  if (!account) return 'ignored';
  if (type === 'account-delete' && (await appleIsOnlyWayIn(ctx, account.user, account.socialSubjects, identity))) {
    // Apple deleted the person's Apple account: its tokens are gone already, nothing to revoke.
    await deleteAccount(ctx, { userId: account.user.userId, tokenVersion: account.user.tokenVersion }, { revokeApple: false }).catch(ignoreGone);
    return type;
  }
  // Sessions first, then the link: a retry after a failure in between still finds the identity.
  const sessions = await readAccountSessions(ctx.db, identity.userId);
  const ending = sessionIdsOf(sessions);
  if (ending.length > 0) await endSessions(ctx.db, identity.userId, ending).catch(ignoreGone);
  await writeAtomically(ctx.db, unlinkIdentityWrites(ctx.db, identity, undefined)).catch(ignoreGone);
  return type;
}

/** The account (or the link) went in the meantime: nothing left to do. */
const ignoreGone = (error: unknown) => {
  if (!(error instanceof UnauthorizedError) && (error as Error).name !== 'TransactionCanceledException') throw error;
};

/**
 * Whether Apple was the account's only way in: no phone, password, passkey or other identity,
 * and no e-mail but Apple's own relay address for it (which stops forwarding with the Apple account).
 */
async function appleIsOnlyWayIn(ctx: ServiceContext, user: UserRecord, socialSubjects: Record<string, string>, identity: SocialIdentityRecord): Promise<boolean> {
  if (user.phone !== null || user.passwordHash !== null) return false;
  if (Object.keys(socialSubjects).some((provider) => provider !== 'apple')) return false;
  if (user.email !== null && !(user.email === identity.email && isAppleRelayAddress(user.email))) return false;
  return (await listPasskeys(ctx.db, user.userId)).length === 0;
}
