import { describe, expect, it } from 'vitest';
import {
  MAX_REFRESH_TOKEN_LENGTH,
  newSessionId,
  newSessionSeed,
  parseRefreshToken,
  refreshTokenFor,
  refreshTokenMatches,
} from '../../shared/identity/refresh-tokens';
import { deriveKeys } from '../../shared/ports/secrets';

const { refreshTokenKey: key, tokenSigningKey } = deriveKeys('unit-test-root-secret-of-at-least-32-characters');
const session = { userId: 42, sessionId: newSessionId(), seed: newSessionSeed() };

describe('refresh tokens', () => {
  it('name the user, the session and the generation, with a 256-bit secret part', () => {
    const token = refreshTokenFor(key, session, 3);
    const parts = parseRefreshToken(token)!;
    expect(parts).toMatchObject({ userId: 42, sessionId: session.sessionId, generation: 3 });
    expect(Buffer.from(parts.secret, 'base64url')).toHaveLength(32);
    expect(token.length).toBeLessThanOrEqual(MAX_REFRESH_TOKEN_LENGTH);
  });

  it('draw 128-bit session ids and 256-bit seeds, different every time', () => {
    const ids = new Set(Array.from({ length: 1000 }, newSessionId));
    const seeds = new Set(Array.from({ length: 1000 }, newSessionSeed));
    expect([ids.size, seeds.size]).toEqual([1000, 1000]);
    expect(Buffer.from([...seeds][0]!, 'base64url')).toHaveLength(32);
    expect(Buffer.from([...ids][0]!, 'base64url')).toHaveLength(16);
  });

  it('derive the same token again for the same generation (the grace window answers it), another for the next', () => {
    expect(refreshTokenFor(key, session, 3)).toBe(refreshTokenFor(key, session, 3));
    expect(refreshTokenFor(key, session, 4)).not.toBe(refreshTokenFor(key, session, 3));
  });

  it('prove only with the right key, seed, generation, user and session', () => {
    const parts = parseRefreshToken(refreshTokenFor(key, session, 3))!;
    expect(refreshTokenMatches(key, parts, session.seed)).toBe(true);
    expect(refreshTokenMatches(tokenSigningKey, parts, session.seed)).toBe(false);
    expect(refreshTokenMatches(key, parts, newSessionSeed())).toBe(false);
    expect(refreshTokenMatches(key, { ...parts, generation: 4 }, session.seed)).toBe(false);
    expect(refreshTokenMatches(key, { ...parts, userId: 43 }, session.seed)).toBe(false);
    expect(refreshTokenMatches(key, { ...parts, sessionId: newSessionId() }, session.seed)).toBe(false);
  });

  it('refuse anything that is not exactly the format', () => {
    const token = refreshTokenFor(key, session, 0);
    const [userId, sessionId, , secret] = token.split('.') as [string, string, string, string];
    for (const bad of [
      '',
      'x',
      `${token}.`,
      ` ${token}`,
      `0.${sessionId}.0.${secret}`,
      `${userId}.${sessionId}.01.${secret}`,
      `${userId}.${sessionId}.-1.${secret}`,
      `${userId}.${sessionId.slice(1)}.0.${secret}`,
      `${userId}.${sessionId}.0.${secret}A`,
      `${userId}.${sessionId}.0.${secret.replace(/./, '+')}`,
      `${userId}.${sessionId}.0.${secret}`.padEnd(MAX_REFRESH_TOKEN_LENGTH + 1, 'A'),
    ]) {
      expect(parseRefreshToken(bad), bad).toBeUndefined();
    }
  });
});
