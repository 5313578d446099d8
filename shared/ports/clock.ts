/** Time as the service sees it; tests and the local server move it to expire codes and tokens. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** The contract's timestamp form, as a pattern (request and response schemas check it). */
export const ISO_SECONDS_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** ISO 8601 UTC at second precision, the contract's timestamp form: 2026-01-29T10:30:00Z. */
export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The UTC calendar date, YYYY-MM-DD. */
export const utcDate = (date: Date): string => date.toISOString().slice(0, 10);
