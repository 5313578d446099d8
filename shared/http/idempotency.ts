import { ValidationError } from '../errors';
import { headerValue } from './headers';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** A repeat within this window returns the first response (contract section 4). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** Visible ASCII, as the IETF draft's examples and Stripe's keys are; long enough for any UUID scheme. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, checked; undefined when the header is absent. */
export function idempotencyKey(headers: Record<string, string | undefined>): string | undefined {
  const value = headerValue(headers, IDEMPOTENCY_HEADER);
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    const message = 'must be 1 to 255 visible ASCII characters';
    throw new ValidationError(`Invalid request: header.${IDEMPOTENCY_HEADER} ${message}`, [
      { path: `header.${IDEMPOTENCY_HEADER}`, message },
    ]);
  }
  return value;
}
