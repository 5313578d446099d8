import { describe, expect, it } from 'vitest';
import { backoff, retryPolicy } from '../../client/src/retry';
import { needsRefresh, sessionOf } from '../../client/src/session';
import { retryAfterSeconds } from '../../client/src/errors';

/** The client's timing rules, which the tests against the server cannot pin down exactly. */
describe('the refresh threshold', () => {
  const session = (lifetimeSeconds: number) => sessionOf({ token: 't', refreshToken: 'r', expiresIn: lifetimeSeconds, userId: 1 }, 0);

  it('is 60 s before expiry for a day-long token', () => {
    const day = session(86_400);
    expect(needsRefresh(day, 86_400_000 - 60_001)).toBe(false);
    expect(needsRefresh(day, 86_400_000 - 59_999)).toBe(true);
  });

  it('is half the lifetime for tokens shorter than 2 minutes', () => {
    const short = session(4);
    expect(needsRefresh(short, 1_999)).toBe(false);
    expect(needsRefresh(short, 2_001)).toBe(true);
  });
});

describe('the backoff', () => {
  it('is full jitter under a ceiling that doubles per retry and is capped', () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    for (let retry = 0; retry < 8; retry++) {
      const waits = Array.from({ length: 500 }, () => backoff(policy, retry));
      const ceiling = Math.min(1000, 100 * 2 ** retry);
      expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...waits)).toBeLessThan(ceiling);
      // Spread over the whole range, not a fixed delay.
      expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(ceiling / 2);
    }
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});
