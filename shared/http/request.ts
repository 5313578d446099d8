import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/v4/core';
import { config, safeParse } from 'zod/mini';
// The one locale, by its own path: `locales.en` of zod/mini's namespace would bundle all of them (~250 KB).
import en from 'zod/v4/locales/en.js';
import { InvalidJsonError, PayloadTooLargeError, ValidationError } from '../errors';
import { headerValue } from './headers';

/**
 * Bodies above this are refused before they are parsed or hashed. The largest legitimate body is
 * a 100 000-character transcription written with JSON `\u` escapes (which some JSON encoders use
 * for every non-ASCII character): 12 bytes for each astral character, about 1.2 MB.
 */
export const MAX_BODY_BYTES = 1.5 * 1024 * 1024;

/** The refusal of a body over MAX_BODY_BYTES, here and where the local server stops reading one. */
export const bodyTooLarge = () => new PayloadTooLargeError(`The request body is larger than ${MAX_BODY_BYTES} bytes.`);

/** The body as text, refused with 413 past MAX_BODY_BYTES: every operation's, whether or not it takes one. */
export function boundedBody(event: APIGatewayProxyEvent): string {
  const raw = event.body ?? '';
  // Measured before decoding: base64 only makes a body longer, never shorter than its content.
  if (raw.length > (event.isBase64Encoded ? Math.ceil((MAX_BODY_BYTES * 4) / 3) : MAX_BODY_BYTES)) {
    throw bodyTooLarge();
  }
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw bodyTooLarge();
  }
  return text;
}

export function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = boundedBody(event);
  const mediaType = headerValue(event.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType?.endsWith('+json')) {
    throw new InvalidJsonError('The request body must be JSON, sent with Content-Type: application/json.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidJsonError('The request body is not valid JSON.', { cause: error });
  }
}

// zod/mini has no messages of its own ("Invalid input"); classic zod installs these English ones,
// which clients read in `details` (e.g. "Invalid input: expected string, received number"). A few
// kilobytes, against the ~90 KB of classic zod.
config(en());

/** Validates one part of the request; every problem is listed in `details`. */
export function validatePart<S extends z.$ZodType>(part: 'body' | 'query' | 'path', schema: S, value: unknown): z.output<S> {
  const result = safeParse(schema, value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const first = details[0]!;
  throw new ValidationError(`Invalid request: ${first.path} ${first.message}`, details, { cause: result.error });
}
