import { expect } from 'vitest';
import { latestCode } from './local-api';
import type { ApiResponse, LocalApi } from './local-api';

/** What a sign-in or a refresh answers (issue 13). */
export interface Signed {
  token: string;
  refreshToken: string;
  expiresIn: number;
  userId: number;
}

export const expectError = (response: ApiResponse, status: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ code: status, error, message: expect.any(String) });
};

/** Sign-ins, refreshes and the checks the session tests make, on one local server. */
export function sessionHelpers(api: LocalApi) {
  const read = (token: string) => api.request('GET', '/api/transcriptions', { token });
  const write = (token: string) =>
    api.request('POST', '/api/transcriptions', { token, body: { recordTitle: 'Note', text: 'Hello', language: 'en-US', durationSeconds: 5 } });
  return {
    /** A code sign-in (the server must allow a code every second: CODE_RESEND_SECONDS=1). */
    async signIn(target: string, options: { clientName?: string; userAgent?: string } = {}): Promise<Signed> {
      api.clock.advance(2);
      const sent = await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const body = { target, verifyCode: latestCode(api, target), ...(options.clientName ? { clientName: options.clientName } : {}) };
      const headers = options.userAgent ? { 'User-Agent': options.userAgent } : undefined;
      const verified = await api.request('POST', '/api/verify-code/verify', { body, headers });
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
      return verified.body as Signed;
    },
    refresh: (refreshToken: unknown, prefix = '/api') => api.request('POST', `${prefix}/auth/token/refresh`, { body: { refreshToken } }),
    sessions: (token: string) => api.request('GET', '/api/auth/sessions', { token }),
    /** A read and a write of the account's data, as an app makes them. */
    read,
    write,
    /** Both data paths refuse the token at once (the authorizer's cached Allow notwithstanding). */
    async expectTokenEnded(token: string) {
      expect((await read(token)).status).toBe(401);
      expect((await write(token)).status).toBe(401);
    },
    async expectTokenWorks(token: string) {
      expect((await read(token)).status).toBe(200);
    },
  };
}
