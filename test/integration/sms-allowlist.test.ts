import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({ SMS_ALLOWED_COUNTRY_CODES: '86,44' });
});
afterAll(() => api?.close());

describe('SMS_ALLOWED_COUNTRY_CODES', () => {
  it('sends to numbers of listed countries', async () => {
    const response = await api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target: '+8613912345678' } });
    expect(response.status).toBe(200);
    expect(api.outbox.list('+8613912345678')).toHaveLength(1);
  });

  it('gives numbers elsewhere the same answer and sends nothing', async () => {
    const allowed = await api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target: '+447911123456' } });
    const refused = await api.request('POST', '/api/verify-code/send', { body: { type: 'sms', target: '+14155552671' } });
    expect(refused.status).toBe(allowed.status);
    expect(refused.body).toEqual(allowed.body);
    expect(api.outbox.list('+14155552671')).toEqual([]);
    // Nothing was stored either, so no code for that number can ever verify.
    const verify = await api.request('POST', '/api/verify-code/verify', { body: { target: '+14155552671', verifyCode: '000000' } });
    expect(verify.body.error).toBe('CODE_INVALID');
  });
});
