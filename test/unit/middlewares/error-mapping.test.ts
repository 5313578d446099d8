import { describe, expect, it } from 'vitest';
import { CodeCooldownError, ServiceUnavailableError } from '../../../shared/errors';
import { answer, proxyEvent } from './pipeline';

const failing = (error: Error) => async () => {
  throw error;
};

describe('error-mapping middleware', () => {
  it('answers a cooldown with its status, body and Retry-After', async () => {
    const result = await answer([], failing(new CodeCooldownError('Please wait before requesting another code.', 42)))(proxyEvent());
    expect(result.status).toBe(400);
    expect(result.headers['Retry-After']).toBe('42');
    expect(result.body).toEqual({ code: 1, message: 'Please wait before requesting another code.', error: 'CODE_COOLDOWN', retryAfterSeconds: 42 });
  });

  it('answers a busy database 503 with Retry-After and the request id', async () => {
    const result = await answer([], failing(new ServiceUnavailableError('The service is busy. Try again shortly.')))(proxyEvent());
    expect(result).toMatchObject({ status: 503, headers: { 'Retry-After': '2' }, body: { code: 503, error: 'SERVICE_UNAVAILABLE', requestId: 'request-1' } });
  });

  it('answers anything else as a bare 500 that names nothing internal, with the security headers', async () => {
    const result = await answer([], failing(new TypeError('Cannot read properties of undefined (reading "Item") at users-repository.ts')))(proxyEvent());
    expect(result.status).toBe(500);
    expect(result.body).toEqual({ code: 500, message: 'Internal server error.', error: 'INTERNAL', requestId: 'request-1' });
    expect(result.headers['X-Content-Type-Options']).toBe('nosniff');
  });
});
