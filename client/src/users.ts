import type { ClientContext } from './context';
import type { components } from './generated/api';
import { dataOf } from './transport';

export type ExportPage = components['schemas']['ExportPage'];

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
  };
}

export type Users = ReturnType<typeof usersArea>;
