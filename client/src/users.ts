import type { ClientContext } from './context';
import type { components, paths } from './generated/api';
import { dataOf } from './transport';

export type ExportPage = components['schemas']['ExportPage'];
export type LinkedIdentity = components['schemas']['LinkedIdentity'];
type LinkBody = paths['/users/me/identities/{provider}']['post']['requestBody']['content']['application/json'];
/** What each provider's link takes: the same body as its sign-in (`signInWithApple` ...). */
export type IdentityLink =
  | { provider: 'apple'; body: Extract<LinkBody, { identityToken: string }> }
  | { provider: 'google'; body: Extract<LinkBody, { idToken: string }> }
  | { provider: 'wechat'; body: Extract<LinkBody, { code: string }> };

/** The signed-in person. */
export function usersArea({ api }: ClientContext) {
  return {
    /** `GET /api/users/me`. */
    me: () => dataOf(api.GET('/users/me')),
    /**
     * Everything the service holds about the person, page by page (each at most 1 MB): the first
     * with the profile, devices and sessions, then records and events oldest first. Only one page
     * is held at a time: `for await (const page of client.users.export()) ...`.
     */
    async *export(): AsyncGenerator<ExportPage, void, undefined> {
      let cursor: string | null = null;
      do {
        const page: ExportPage = await dataOf(api.GET('/users/me/export', { params: { query: cursor ? { cursor } : {} } }));
        yield page;
        cursor = page.nextCursor;
      } while (cursor);
    },
    /**
     * `GET /api/users/me/summary`: what the app shows when it opens, in one request: the user, the
     * first page of devices, this week's usage and the last value of each setting to restore.
     */
    summary: () => dataOf(api.GET('/users/me/summary')),
    /**
     * Sign-in with Apple, Google and WeChat linked to the account (from the settings screen).
     * `link` takes the provider's sign-in body and works within 10 minutes of this session's sign-in
     * (else ApiError 403 REAUTHENTICATION_REQUIRED: sign in again first); an identity of another
     * account is 409. `unlink` refuses the account's last way in (409 LAST_SIGN_IN_METHOD).
     */
    identities: {
      list: () => dataOf(api.GET('/users/me/identities')),
      link: ({ provider, body }: IdentityLink) => dataOf(api.POST('/users/me/identities/{provider}', { params: { path: { provider } }, body })),
      unlink: (provider: LinkedIdentity['provider']) => dataOf(api.DELETE('/users/me/identities/{provider}', { params: { path: { provider } } })),
    },
  };
}

export type Users = ReturnType<typeof usersArea>;
