import { readForAccount } from '../db/account-guard';
import type { AccountRef } from '../db/account-guard';
import { listSocialIdentities } from '../db/social-identities-repository';
import type { SocialIdentityRecord, SocialProvider } from '../db/social-identities-repository';
import type { ServiceContext } from '../service-context';

/**
 * The linked identities as the settings show them (`GET /api/users/me/identities`): apart from
 * social/identity-links.ts so that reading them bundles no provider's verification.
 */
export interface LinkedIdentity {
  provider: SocialProvider;
  linkedAt: string;
  email: string | null;
  givenName: string | null;
  familyName: string | null;
}

export const view = (identity: SocialIdentityRecord): LinkedIdentity => ({
  provider: identity.provider,
  linkedAt: identity.linkedAt,
  email: identity.email,
  // Apple's name only: no other provider's is stored.
  givenName: identity.provider === 'apple' ? identity.givenName : null,
  familyName: identity.provider === 'apple' ? identity.familyName : null,
});

export async function listLinkedIdentities(ctx: ServiceContext, caller: AccountRef): Promise<LinkedIdentity[]> {
  const identities = await readForAccount(ctx.db, caller, () => listSocialIdentities(ctx.db, caller.userId));
  return identities.map(view).sort((a, b) => a.provider.localeCompare(b.provider));
}

