import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi, uniqueEmail, uniquePhone } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

/** SMS limited to configured country calling codes (contract sections 3 and 5). */
let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({ SMS_ALLOWED_COUNTRY_CODES: '86,44' });
});
afterAll(() => api?.close());

const send = (type: 'sms' | 'email', target: string) => api.request('POST', '/api/verify-code/send', { body: { type, target } });

describe('SMS_ALLOWED_COUNTRY_CODES', () => {
  it('texts numbers of listed countries', async () => {
    const phone = uniquePhone();
    expect((await send('sms', phone)).status).toBe(200);
    expect(api.outbox.list(phone)).toHaveLength(1);
  });

  it('sends nothing to other countries, with the ordinary answer', async () => {
    const allowed = await send('sms', uniquePhone());
    const us = '+16502530000';
    const refused = await send('sms', us);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: allowed.status, body: allowed.body });
    expect(api.outbox.list(us)).toEqual([]);
    const verify = await api.request('POST', '/api/verify-code/verify', { body: { target: us, verifyCode: '123456' } });
    expect(verify.body).toMatchObject({ code: 1, error: 'CODE_INVALID' });
  });

  it('does not limit e-mail', async () => {
    const email = uniqueEmail();
    expect((await send('email', email)).status).toBe(200);
    expect(api.outbox.list(email)).toHaveLength(1);
  });
});
