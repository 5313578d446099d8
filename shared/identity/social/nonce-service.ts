import type * as z from 'zod/mini';
import type { socialNonceSchema } from '../../api/schemas';
import { epochSeconds } from '../../ports/clock';
import type { ServiceContext } from '../../service-context';
import { NONCE_TTL_SECONDS, issueNonce } from './nonces';

/** `POST /api/auth/social/nonce`: a signed nonce, nothing written (the function has no table). */
export type SocialNonceAnswer = z.output<typeof socialNonceSchema>;

export async function newSocialNonce(ctx: ServiceContext): Promise<SocialNonceAnswer> {
  const { socialNonceKey } = await ctx.keys();
  return { nonce: issueNonce(socialNonceKey, epochSeconds(ctx.clock.now())), expiresIn: NONCE_TTL_SECONDS };
}
