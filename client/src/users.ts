import type { ClientContext } from './context';
import { dataOf } from './transport';

/** The signed-in person. */
export function usersArea({ api }: ClientContext) {
  return {
    /** `GET /api/users/me`. */
    me: () => dataOf(api.GET('/users/me')),
  };
}

export type Users = ReturnType<typeof usersArea>;
