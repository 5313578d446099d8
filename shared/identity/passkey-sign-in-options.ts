import type * as z from 'zod/mini';
import type { passkeyRequestOptionsSchema } from '../api/schemas';
import { epochSeconds } from '../ports/clock';
import type { ServiceContext } from '../service-context';
import { CHALLENGE_TTL_SECONDS, issueChallenge } from './passkey-challenges';

export type PasskeyRequestOptions = z.output<typeof passkeyRequestOptionsSchema>;

/**
 * The options to sign in with a passkey. In a module of its own: the function that answers them
 * touches no table (its route says so), so it must not bundle the passkey repository and the
 * DynamoDB client with the rest of the passkey service.
 */
export async function signInOptions(ctx: ServiceContext): Promise<PasskeyRequestOptions> {
  const { passkeyChallengeKey } = await ctx.keys();
  const challenge = issueChallenge(passkeyChallengeKey, { ceremony: 'authentication', userId: 0, userHandle: '' }, epochSeconds(ctx.clock.now()));
  return { challenge, rpId: ctx.config.WEBAUTHN_RP_ID, timeout: CHALLENGE_TTL_SECONDS * 1000, userVerification: 'required' };
}
