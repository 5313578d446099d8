import { describe, expect, it } from 'vitest';
import * as errors from '../../shared/errors';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, errorResponse } from '../../shared/http/error-map';

type ErrorClass = new (...args: any[]) => errors.DomainError;
const isDomainErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && value.prototype instanceof errors.DomainError;

/** Every concrete DomainError subclass exported by shared/errors.ts, instantiated. */
const instances = (Object.entries(errors) as [string, unknown][])
  .flatMap(([name, value]) => (isDomainErrorClass(value) ? [{ name, error: new value('message for the caller', 3) }] : []))
  // Abstract bases (RetryLaterError) have no code of their own.
  .filter(({ error }) => typeof error.code === 'string');

describe('error map', () => {
  it('finds the domain errors of shared/errors.ts', () => {
    expect(instances.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['InvalidJsonError', 'ValidationError', 'CodeCooldownError', 'UnauthorizedError', 'DeliveryFailedError']),
    );
  });

  it('answers every domain error with a 4xx or a 503 carrying its own name and message, never a bare 500', () => {
    for (const { name, error } of instances) {
      const response = errorResponse(error, 'req-1');
      expect([400, 401, 403, 404, 409, 410, 412, 413, 422, 429, 503], name).toContain(response.status);
      expect(response.body, name).toMatchObject({ error: error.code, message: 'message for the caller' });
      // The body code is the status, or 1 for the seed's rule violations (always with a 400 or a 503).
      expect([response.status, 1], name).toContain(response.body.code);
    }
  });

  it('declares code, status and description once per class, the instance code equal to the static one', () => {
    for (const { name, error } of instances) {
      const declaration = errors.declarationOf(error)!;
      expect(declaration, name).toBeDefined();
      expect(error.code, name).toBe(declaration.code);
      expect(declaration.description.length, name).toBeGreaterThan(10);
    }
    expect(new Set(instances.map(({ error }) => error.code)).size).toBe(instances.length);
  });

  it('gives the contract rows their status and code', () => {
    const expected: Record<string, [number, number]> = {
      INVALID_JSON: [400, 400],
      VALIDATION_FAILED: [400, 400],
      CODE_COOLDOWN: [400, 1],
      CODE_DAILY_LIMIT: [400, 1],
      CODE_INVALID: [400, 1],
      CODE_ATTEMPTS_EXCEEDED: [400, 1],
      ACCOUNT_EXISTS: [400, 1],
      INVALID_CREDENTIALS: [400, 1],
      LOGIN_LOCKED: [400, 1],
      DEVICE_BOUND_ELSEWHERE: [400, 1],
      UNAUTHORIZED: [401, 401],
      NOT_FOUND: [404, 404],
      DELIVERY_FAILED: [503, 1],
    };
    const byCode = new Map(instances.map(({ error }) => [error.code, errorResponse(error, undefined)]));
    for (const [code, [status, bodyCode]] of Object.entries(expected)) {
      expect([code, byCode.get(code)?.status, byCode.get(code)?.body.code]).toEqual([code, status, bodyCode]);
    }
  });

  it('adds Retry-After and retryAfterSeconds for errors that say when to come back', () => {
    const response = errorResponse(new errors.CodeCooldownError('Retry after 60 seconds.', 42), undefined);
    expect(response.headers['Retry-After']).toBe('42');
    expect(response.body).toMatchObject({ code: 1, error: 'CODE_COOLDOWN', retryAfterSeconds: 42 });
    expect(errorResponse(new errors.LoginLockedError('locked', 900), undefined).headers['Retry-After']).toBe('900');
  });

  it('adds Retry-After to every 503 and 429 it answers', () => {
    const statuses = Object.values(errors)
      .flatMap((value) => (errors.isDeclaration(value) ? [[value.code, value.http] as const] : []))
      .filter(([, mapped]) => mapped.status === 503 || mapped.status === 429);
    expect(statuses.map(([code]) => code)).toEqual(expect.arrayContaining(['SERVICE_UNAVAILABLE', 'DELIVERY_FAILED']));
    // One instance of every domain error class that maps to 503 or 429.
    const instances: errors.DomainError[] = [
      new errors.ServiceUnavailableError('busy'),
      new errors.DeliveryFailedError('not delivered'),
      new errors.SmsLimitReachedError('paused', 1800),
      new errors.ProviderUnavailableError('unreachable', 10),
    ];
    for (const [code] of statuses) {
      const error = instances.find((candidate) => candidate.code === code)!;
      expect(error, code).toBeDefined();
      const response = errorResponse(error, 'r1');
      expect(Number(response.headers['Retry-After']), code).toBeGreaterThanOrEqual(1);
    }
    expect(errorResponse(new errors.ServiceUnavailableError('busy'), 'r1').headers['Retry-After']).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  });

  it('lists validation details', () => {
    const details = [{ path: 'body.target', message: 'must be an e-mail address' }];
    expect(errorResponse(new errors.ValidationError('Invalid request', details), undefined).body.details).toEqual(details);
  });

  it('answers anything unexpected with a bare 500 that carries no message, stack or name', () => {
    const secret = 'connect ECONNREFUSED 10.0.0.7:8000 table=prod-users';
    for (const thrown of [new Error(secret), new TypeError(secret), secret, { message: secret }, undefined]) {
      const response = errorResponse(thrown, 'req-7');
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ code: 500, message: expect.any(String), error: 'INTERNAL', requestId: 'req-7' });
      const text = JSON.stringify(response);
      expect(text).not.toContain('ECONNREFUSED');
      expect(text).not.toContain('TypeError');
      expect(text).not.toMatch(/\bat .*\.ts:\d+/);
    }
  });

  it('keeps the cause and stack of a 5xx domain error out of its body', () => {
    const cause = new Error('SES: MessageRejected for secret@example.com');
    for (const error of [new errors.DeliveryFailedError('The code could not be delivered.', { cause }), new errors.ServiceUnavailableError('Try again.', { cause })]) {
      const response = errorResponse(error, 'req-9');
      expect(response.status).toBe(503);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('secret@example.com');
      expect(text).not.toContain('MessageRejected');
      expect(text).not.toContain('error-map.test');
      expect(response.body.requestId).toBe('req-9');
    }
  });
});
