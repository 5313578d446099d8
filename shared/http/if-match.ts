import { ValidationError } from '../errors';
import { headerValue } from './headers';

export const IF_MATCH_HEADER = 'If-Match';

/** A record's ETag: its revision, quoted (a strong entity tag, RFC 9110). */
export const IF_MATCH_PATTERN = /^"([1-9]\d{0,14})"$/;

/**
 * The revision a change is conditioned on (`If-Match: "<revision>"`, the ETag of the record as the
 * app last saw it); undefined when the header is absent, and then the last writer wins. Anything
 * else (a list, `*`, a weak tag, no quotes) is a 400: a condition the service cannot honour
 * exactly is refused rather than ignored.
 */
export function ifMatchRevision(headers: Record<string, string | undefined>): number | undefined {
  const value = headerValue(headers, IF_MATCH_HEADER);
  if (value === undefined) return undefined;
  const match = IF_MATCH_PATTERN.exec(value.trim());
  if (!match) {
    const message = 'must be the ETag of the record, a revision in double quotes like "3"';
    throw new ValidationError(`Invalid request: header.${IF_MATCH_HEADER} ${message}`, [{ path: `header.${IF_MATCH_HEADER}`, message }]);
  }
  return Number(match[1]);
}
