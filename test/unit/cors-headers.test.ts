import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config';
import { NotFoundError } from '../../shared/errors';
import { createLogging } from '../../shared/logging/logger';
import { errorToResult, resultToResponse } from '../../shared/http/response';

const configWith = (CORS_ORIGINS: string) => parseConfig({ TABLE_NAME: 'accounts', CORS_ORIGINS });
const fromOrigin = (origin?: string) => ({ headers: origin ? { Origin: origin } : {}, requestContext: { requestId: 'r-1' } }) as unknown as APIGatewayProxyEvent;
const log = createLogging({ level: 'error' }).logger();

describe('CORS headers on handler responses', () => {
  it('allows any origin with CORS_ORIGINS=*', () => {
    const response = resultToResponse({ ok: true }, fromOrigin('https://anything.example'), configWith('*'));
    expect(response.headers).toMatchObject({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': expect.stringContaining('X-Next-Cursor') });
    expect(response.headers).not.toHaveProperty('Vary');
  });

  it('echoes a listed origin, on successes and errors alike', () => {
    const cfg = configWith('https://a.example.com, https://b.example.com');
    for (const response of [
      resultToResponse({ ok: true }, fromOrigin('https://b.example.com'), cfg),
      errorToResult(new NotFoundError('Not found.'), fromOrigin('https://b.example.com'), cfg, log),
    ]) {
      expect(response.headers).toMatchObject({ 'Access-Control-Allow-Origin': 'https://b.example.com', Vary: 'Origin' });
    }
  });

  it('gives an unlisted or missing origin no Allow-Origin, and says the answer varies by Origin', () => {
    const cfg = configWith('https://a.example.com');
    for (const origin of ['https://evil.example.com', 'https://a.example.com.evil.example', undefined]) {
      const response = resultToResponse({ ok: true }, fromOrigin(origin), cfg);
      expect(response.headers, origin).not.toHaveProperty('Access-Control-Allow-Origin');
      expect(response.headers!.Vary).toBe('Origin');
    }
  });
});
