import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, parseConfig } from '../../shared/config';

const minimal = { TABLE_NAME: 'accounts' };

describe('parseConfig', () => {
  it('fills in the contract defaults', () => {
    expect(parseConfig(minimal)).toMatchObject({
      TABLE_NAME: 'accounts',
      TOKEN_TTL_MS: 86_400_000,
      CODE_TTL_SECONDS: 600,
      CODE_RESEND_SECONDS: 60,
      CODE_DAILY_LIMIT: 10,
      AUTHORIZER_CACHE_SECONDS: 300,
      CORS_ORIGINS: ['*'],
    });
    expect(parseConfig(minimal).SMS_ALLOWED_COUNTRY_CODES).toBeUndefined();
  });

  it('reads numbers and the SMS country list from strings', () => {
    const cfg = parseConfig({ ...minimal, TOKEN_TTL_MS: '3600000', CODE_DAILY_LIMIT: '3', SMS_ALLOWED_COUNTRY_CODES: '86, +1,44' });
    expect(cfg.TOKEN_TTL_MS).toBe(3_600_000);
    expect(cfg.CODE_DAILY_LIMIT).toBe(3);
    expect(cfg.SMS_ALLOWED_COUNTRY_CODES).toEqual(['86', '1', '44']);
    expect(parseConfig({ ...minimal, SMS_ALLOWED_COUNTRY_CODES: '' }).SMS_ALLOWED_COUNTRY_CODES).toBeUndefined();
    expect(parseConfig(minimal).LOG_DEBUG_SAMPLE_RATE).toBe(0);
    expect(parseConfig({ ...minimal, LOG_DEBUG_SAMPLE_RATE: '0.05' }).LOG_DEBUG_SAMPLE_RATE).toBe(0.05);
    expect(parseConfig({ ...minimal, LOG_DEBUG_SAMPLE_RATE: '1' }).LOG_DEBUG_SAMPLE_RATE).toBe(1);
  });

  it('fails fast, naming the setting, on a bad or missing value', () => {
    const bad: Record<string, string | undefined>[] = [
      {},
      { ...minimal, TOKEN_TTL_MS: 'a day' },
      { ...minimal, TOKEN_TTL_MS: '-5' },
      { ...minimal, CODE_TTL_SECONDS: '1.5' },
      { ...minimal, CODE_DAILY_LIMIT: '0' },
      { ...minimal, AUTHORIZER_CACHE_SECONDS: '7200' },
      { ...minimal, SMS_ALLOWED_COUNTRY_CODES: '86,abc' },
      { ...minimal, LOG_LEVEL: 'verbose' },
      { ...minimal, LOG_DEBUG_SAMPLE_RATE: '1.5' },
      { ...minimal, LOG_DEBUG_SAMPLE_RATE: '5%' },
      { ...minimal, DYNAMODB_ENDPOINT: 'not a url' },
      // Number() would read these as 0, 16 and 1000: a setting is decimal digits or nothing.
      { ...minimal, CODE_RESEND_SECONDS: '' },
      { ...minimal, CODE_RESEND_SECONDS: '0x10' },
      { ...minimal, CODE_RESEND_SECONDS: '1e3' },
      { ...minimal, APP_NAME: 'A name longer than twenty' },
      { ...minimal, JWT_ISSUER: '' },
      { ...minimal, SES_FROM_ADDRESS: 'x' },
    ];
    for (const env of bad) {
      const setting = Object.keys(env).find((name) => name !== 'TABLE_NAME') ?? 'TABLE_NAME';
      expect(() => parseConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => parseConfig(env)).toThrow(setting);
    }
  });

  it('reads CORS_ORIGINS as * or a list of exact origins, and refuses what no browser Origin could match', () => {
    expect(parseConfig({ ...minimal, CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
    expect(parseConfig({ ...minimal, CORS_ORIGINS: ' https://app.example.com , http://localhost:3000,' }).CORS_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    for (const value of ['', ' , ', 'https://app.example.com/', 'app.example.com', 'https://app.example.com/login', 'https://APP.example.com', '*,https://app.example.com']) {
      expect(() => parseConfig({ ...minimal, CORS_ORIGINS: value }), value).toThrow(/CORS_ORIGINS: /);
    }
  });

  it('reads the passkey settings, with local defaults for http://localhost:8080, and refuses what no platform would accept', () => {
    expect(parseConfig(minimal)).toMatchObject({ WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_NAME: 'Captions', WEBAUTHN_ORIGINS: ['http://localhost:8080'] });
    const apk = `android:apk-key-hash:${'A'.repeat(43)}`;
    const cfg = parseConfig({ ...minimal, WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_RP_NAME: 'Captions', WEBAUTHN_ORIGINS: `https://example.com, https://app.example.com:8443,${apk}` });
    expect(cfg.WEBAUTHN_ORIGINS).toEqual(['https://example.com', 'https://app.example.com:8443', apk]);
    const refused: [Record<string, string>, RegExp][] = [
      [{ WEBAUTHN_RP_ID: 'https://example.com' }, /WEBAUTHN_RP_ID/],
      [{ WEBAUTHN_RP_ID: 'example.com:443' }, /WEBAUTHN_RP_ID/],
      [{ WEBAUTHN_RP_ID: 'Example.com' }, /WEBAUTHN_RP_ID/],
      [{ WEBAUTHN_RP_ID: '10.0.0.1' }, /WEBAUTHN_RP_ID/],
      [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' }, /WEBAUTHN_ORIGINS: https:\/\/example.org is not on the RP ID example.com/],
      [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://notexample.com' }, /WEBAUTHN_ORIGINS/],
      [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'http://example.com' }, /WEBAUTHN_ORIGINS: http:\/\/example.com must use https/],
      [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.com/' }, /WEBAUTHN_ORIGINS/],
      [{ WEBAUTHN_ORIGINS: 'android:apk-key-hash:short' }, /WEBAUTHN_ORIGINS/],
      [{ WEBAUTHN_ORIGINS: ' , ' }, /WEBAUTHN_ORIGINS/],
      [{ WEBAUTHN_RP_NAME: '' }, /WEBAUTHN_RP_NAME/],
    ];
    for (const [env, message] of refused) expect(() => parseConfig({ ...minimal, ...env }), JSON.stringify(env)).toThrow(message);
  });

  it('reports every bad setting of one start, not only the first', () => {
    const problem = (() => {
      try {
        parseConfig({ TOKEN_TTL_MS: 'soon', LOG_LEVEL: 'loud' });
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    })();
    expect(problem).toMatch(/^Invalid configuration: /);
    for (const setting of ['TABLE_NAME', 'TOKEN_TTL_MS', 'LOG_LEVEL']) expect(problem).toContain(`${setting}: `);
  });

  it('takes whole numbers with surrounding blanks and the full range of the cache setting', () => {
    expect(parseConfig({ ...minimal, CODE_DAILY_LIMIT: ' 7 ' }).CODE_DAILY_LIMIT).toBe(7);
    expect(parseConfig({ ...minimal, AUTHORIZER_CACHE_SECONDS: '0' }).AUTHORIZER_CACHE_SECONDS).toBe(0);
    expect(parseConfig({ ...minimal, AUTHORIZER_CACHE_SECONDS: '3600' }).AUTHORIZER_CACHE_SECONDS).toBe(3600);
    expect(parseConfig({ ...minimal, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).DYNAMODB_ENDPOINT).toBe('http://127.0.0.1:8000');
  });
});

describe('PASSWORD_HASH_COST', () => {
  it("is OWASP's 17 unless set, and lower only against DynamoDB Local", () => {
    expect(parseConfig(minimal).PASSWORD_HASH_COST).toBe(17);
    expect(parseConfig({ ...minimal, PASSWORD_HASH_COST: '18' }).PASSWORD_HASH_COST).toBe(18);
    expect(() => parseConfig({ ...minimal, PASSWORD_HASH_COST: '10' })).toThrow(/PASSWORD_HASH_COST: is below 17: local mode only/);
    expect(parseConfig({ ...minimal, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', PASSWORD_HASH_COST: '10' }).PASSWORD_HASH_COST).toBe(10);
    expect(() => parseConfig({ ...minimal, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', PASSWORD_HASH_COST: '9' })).toThrow(ConfigError);
  });
});

describe('on Lambda', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('a bad setting fails the cold start (module init), not a later request', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'get-me');
    vi.stubEnv('TABLE_NAME', 'accounts');
    vi.stubEnv('TOKEN_TTL_MS', 'one day');
    await expect(import('../../functions/users/get-me')).rejects.toThrow(/TOKEN_TTL_MS/);
  });
});
