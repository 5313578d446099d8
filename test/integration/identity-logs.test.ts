import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskTarget } from '../../shared/logging/logger';
import { latestCode, startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/**
 * The logs of a whole session story (sign-ins, refresh, bind, save, delete), at debug level, carry
 * no code, password, token, refresh token, root secret or full e-mail address or phone number.
 */
let api: LocalApi;
const lines: string[] = [];

beforeAll(async () => {
  api = await startLocalApi({ LOG_LEVEL: 'debug' }, { logSink: (line) => lines.push(line) });
});
afterAll(async () => {
  await api?.close();
});

describe('logs', () => {
  it('keep codes, passwords, tokens, refresh tokens, e-mail addresses and phone numbers out', async () => {
    const email = uniqueEmail('logged');
    const phone = uniquePhone();
    const undeliverable = uniqueEmail('undeliverable');
    const password = 'Pa55word-for-logs-7';
    const wrongPassword = 'Wrong-pa55word-for-logs-8';
    const codes: string[] = [];
    const tokens: string[] = [];

    const sendAndRemember = async (target: string) => {
      const response = await api.request('POST', '/api/verify-code/send', { body: { type: target.includes('@') ? 'email' : 'sms', target } });
      expect(response.status).toBe(200);
      codes.push(latestCode(api, target));
      return codes.at(-1)!;
    };

    // Code sign-in (registers), the current user, a password reset, password logins.
    const verified = await api.request('POST', '/api/verify-code/verify', { body: { target: email, verifyCode: await sendAndRemember(email) } });
    expect(verified.status).toBe(200);
    tokens.push(verified.body.token);
    expect((await api.request('GET', '/api/users/me', { token: verified.body.token })).status).toBe(200);
    api.clock.advance(61);
    const reset = await api.request('POST', '/api/auth/password/reset', {
      body: { target: email, verifyCode: await sendAndRemember(email), newPassword: password },
    });
    expect(reset.status).toBe(200);
    const loggedIn = await api.request('POST', '/api/auth/login', { body: { email, password } });
    expect(loggedIn.status).toBe(200);
    tokens.push(loggedIn.body.token);
    expect((await api.request('POST', '/api/auth/login', { body: { email, password: wrongPassword } })).status).toBe(400);
    // Refused tokens: one revoked by the reset, one forged.
    expect((await api.request('GET', '/api/users/me', { token: verified.body.token })).status).toBe(401);
    expect((await api.request('GET', '/api/users/me', { token: `${loggedIn.body.token.slice(0, -3)}abc` })).status).toBe(401);

    // Sessions: a refresh, its replay inside the grace window, a reuse after it, a list, logout with a refresh token.
    const refreshTokens = [loggedIn.body.refreshToken as string];
    const refreshed = await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: loggedIn.body.refreshToken } });
    expect(refreshed.status).toBe(200);
    tokens.push(refreshed.body.token);
    refreshTokens.push(refreshed.body.refreshToken);
    expect((await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: loggedIn.body.refreshToken } })).status).toBe(200);
    api.clock.advance(31);
    expect((await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: loggedIn.body.refreshToken } })).status).toBe(401);
    expect((await api.request('POST', '/api/auth/token/refresh', { body: { refreshToken: 'not-a-refresh-token' } })).status).toBe(401);

    // The same by phone, a failed delivery, and a wrong code.
    const byPhone = await api.request('POST', '/api/verify-code/verify', { body: { target: phone, verifyCode: await sendAndRemember(phone) } });
    expect(byPhone.status).toBe(200);
    tokens.push(byPhone.body.token);
    refreshTokens.push(byPhone.body.refreshToken);
    expect((await api.request('GET', '/api/auth/sessions', { token: byPhone.body.token })).status).toBe(200);
    expect((await api.request('POST', '/api/auth/logout', { token: byPhone.body.token, body: { refreshToken: byPhone.body.refreshToken } })).status).toBe(200);
    api.outbox.failNext();
    expect((await api.request('POST', '/api/verify-code/send', { body: { type: 'email', target: undeliverable } })).status).toBe(503);
    expect((await api.request('POST', '/api/verify-code/verify', { body: { target: phone, verifyCode: '000000' } })).status).toBe(400);

    // A data session: sign in, bind a device, save a record, delete the account.
    const owner = uniqueEmail('logged-data');
    const dataSession = await api.request('POST', '/api/verify-code/verify', { body: { target: owner, verifyCode: await sendAndRemember(owner) } });
    expect(dataSession.status).toBe(200);
    tokens.push(dataSession.body.token);
    refreshTokens.push(dataSession.body.refreshToken);
    const token = dataSession.body.token as string;
    const bound = await api.request('POST', '/api/devices', { token, body: { sn: `SN-LOGS-${Date.now().toString(36)}`, mac: '00:11:22:33:44:55', productModel: 'Glass' } });
    expect(bound.status).toBe(200);
    const saved = await api.request('POST', '/api/transcriptions', { token, body: { recordTitle: 'Logged', text: 'nothing of this in the logs', language: 'en-US', durationSeconds: 3 } });
    expect(saved.status).toBe(200);
    expect((await api.request('DELETE', '/api/users/me', { token })).status).toBe(200);

    // The logs were captured (so the checks below look at something), and name targets masked.
    expect(lines.length).toBeGreaterThan(10);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.some((entry) => entry.target === maskTarget(undeliverable))).toBe(true);

    // Request ids are random hex: they may contain six digits by chance, so codes are looked for elsewhere.
    const text = entries.map(({ requestId: _requestId, ...rest }) => JSON.stringify(rest)).join('\n');
    for (const code of codes) expect(text).not.toContain(code);
    for (const secret of [password, wrongPassword, api.rootSecret]) expect(text).not.toContain(secret);
    expect(text).not.toContain('nothing of this in the logs');
    for (const token of tokens) {
      expect(text).not.toContain(token);
      for (const segment of token.split('.').slice(1)) expect(text).not.toContain(segment);
    }
    // A refresh token's secret part (the last) is what must never be written anywhere.
    for (const refreshToken of refreshTokens) expect(text).not.toContain(refreshToken.split('.').at(-1));
    // The reuse was logged, as the operator needs to see it, without the token.
    expect(entries.some((entry) => entry.message === 'refresh token reuse: session ended')).toBe(true);
    for (const target of [email, undeliverable, owner]) {
      expect(text.toLowerCase()).not.toContain(target);
      expect(text).not.toContain(target.split('@')[0]);
    }
    expect(text).not.toContain(phone);
    expect(text).not.toContain(phone.slice(3));
  });
});
