import type { AccountRef } from '../db/account-guard';
import { forgetPushTokenWrites, keepPushTokenWrites } from '../db/push-repository';
import { writeAtomically } from '../db/transactions';
import { UnauthorizedError } from '../errors';
import { isoSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import type { PushTokenBody } from './push-schemas';

/**
 * The app's push token on its own session (docs/realtime.md#the-silent-push): the session the
 * caller's token names, so each app on each device keeps one, replaced by the next it sends.
 */
const sessionOf = (caller: AccountRef) => {
  // Every bearer token of a person names its session; one without (none are issued) has nowhere to keep a token.
  if (caller.sessionId === undefined) throw new UnauthorizedError('Unauthorized');
  return { ...caller, sessionId: caller.sessionId };
};

export async function keepPushToken(ctx: Pick<ServiceContext, 'db' | 'clock'>, caller: AccountRef, body: PushTokenBody): Promise<void> {
  await writeAtomically(ctx.db, keepPushTokenWrites(ctx.db, sessionOf(caller), body, isoSeconds(ctx.clock.now())));
}

export async function forgetPushToken(ctx: Pick<ServiceContext, 'db'>, caller: AccountRef): Promise<void> {
  await writeAtomically(ctx.db, forgetPushTokenWrites(ctx.db, sessionOf(caller)));
}
