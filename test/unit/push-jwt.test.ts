import { describe, expect, it } from 'vitest';
import { APNS_JWT_REFRESH_SECONDS, APNS_PRODUCTION_URL, APNS_SANDBOX_URL, apnsJwtCache, apnsOrigin, apnsOutcome } from '../../shared/adapters/push/apns';
import { fcmOutcome } from '../../shared/adapters/push/fcm';

/**
 * The APNs provider token's reuse window (docs/realtime.md#the-silent-push): Apple refuses a JWT
 * older than an hour and one replaced more often than every 20 minutes, so the sender keeps one
 * for APNS_JWT_REFRESH_SECONDS, between the two. And what each provider's answer means.
 */
function signer() {
  const made: number[] = [];
  let failNext = false;
  return {
    made,
    failOnce: () => (failNext = true),
    sign: async (iat: number) => {
      if (failNext) {
        failNext = false;
        throw new Error('no key');
      }
      made.push(iat);
      return `jwt-${iat}`;
    },
  };
}

describe('the APNs provider token', () => {
  it('is reused for at least 20 minutes and replaced before it is an hour old', async () => {
    expect(APNS_JWT_REFRESH_SECONDS).toBeGreaterThanOrEqual(20 * 60);
    expect(APNS_JWT_REFRESH_SECONDS).toBeLessThan(60 * 60);
    let now = 1_000_000;
    const { made, sign } = signer();
    const cache = apnsJwtCache(sign, () => now);
    expect(await cache.get()).toBe('jwt-1000000');
    for (const later of [1, 20 * 60, APNS_JWT_REFRESH_SECONDS - 1]) {
      now = 1_000_000 + later;
      expect(await cache.get()).toBe('jwt-1000000');
    }
    now = 1_000_000 + APNS_JWT_REFRESH_SECONDS;
    expect(await cache.get()).toBe(`jwt-${now}`);
    expect(made).toEqual([1_000_000, 1_000_000 + APNS_JWT_REFRESH_SECONDS]);
  });

  it('parallel pushes share one signing; a failed signing is not kept', async () => {
    const { made, sign, failOnce } = signer();
    const cache = apnsJwtCache(sign, () => 5);
    failOnce();
    await expect(cache.get()).rejects.toThrow('no key');
    expect(await Promise.all([cache.get(), cache.get(), cache.get()])).toEqual(['jwt-5', 'jwt-5', 'jwt-5']);
    expect(made).toEqual([5]);
  });

  it('one Apple refused is made again at the next push', async () => {
    let now = 100;
    const { made, sign } = signer();
    const cache = apnsJwtCache(sign, () => now);
    await cache.get();
    now = 200;
    cache.forget();
    expect(await cache.get()).toBe('jwt-200');
    expect(made).toEqual([100, 200]);
  });
});

describe('where a push goes and what the answer means', () => {
  it('a sandbox token goes to Apple\'s sandbox while APNS_URL is Apple\'s production; a stand-in takes both', () => {
    expect(apnsOrigin({ APNS_URL: APNS_PRODUCTION_URL }, 'production')).toBe(APNS_PRODUCTION_URL);
    expect(apnsOrigin({ APNS_URL: APNS_PRODUCTION_URL }, 'sandbox')).toBe(APNS_SANDBOX_URL);
    expect(apnsOrigin({ APNS_URL: 'http://127.0.0.1:9000' }, 'sandbox')).toBe('http://127.0.0.1:9000');
  });

  it('APNs: 410 and BadDeviceToken are dead tokens; other refusals are failures', () => {
    expect(apnsOutcome(200, undefined)).toBe('sent');
    expect(apnsOutcome(410, 'Unregistered')).toBe('dead');
    expect(apnsOutcome(400, 'BadDeviceToken')).toBe('dead');
    expect(apnsOutcome(400, 'DeviceTokenNotForTopic')).toBe('failed');
    expect(apnsOutcome(403, 'ExpiredProviderToken')).toBe('failed');
    expect(apnsOutcome(429, 'TooManyRequests')).toBe('failed');
  });

  it('FCM: 404 / UNREGISTERED is a dead token; other refusals are failures', () => {
    const error = (code: number, status: string, errorCode?: string) => ({
      error: { code, status, ...(errorCode ? { details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } : {}) },
    });
    expect(fcmOutcome(200, { name: 'projects/p/messages/1' })).toEqual({ outcome: 'sent' });
    expect(fcmOutcome(404, error(404, 'NOT_FOUND', 'UNREGISTERED'))).toEqual({ outcome: 'dead', reason: 'UNREGISTERED' });
    expect(fcmOutcome(400, error(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'))).toEqual({ outcome: 'failed', reason: 'INVALID_ARGUMENT' });
    expect(fcmOutcome(503, error(503, 'UNAVAILABLE', 'UNAVAILABLE'))).toEqual({ outcome: 'failed', reason: 'UNAVAILABLE' });
    expect(fcmOutcome(401, error(401, 'UNAUTHENTICATED'))).toEqual({ outcome: 'failed', reason: 'UNAUTHENTICATED' });
  });
});
