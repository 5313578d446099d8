import * as z from 'zod/mini';
import { isCommonPassword } from './common-passwords';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';

/**
 * A new password: 8 to 128 characters (contract section 3) and not a common one.
 * `@__PURE__` lets esbuild drop this schema, and with it the 36 KB common-password list, from the
 * functions that never take a new password (login, verify). It marks the call of the builder: on a
 * chain it would only cover the first call (`z.string()`), not the `.check(...)` that holds the list.
 */
export const newPasswordSchema = /* @__PURE__ */ (() =>
  z.string().check(
    z.minLength(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`),
    z.maxLength(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`),
    z.refine((password) => !isCommonPassword(password), 'is one of the most common passwords and easy to guess; choose another'),
    z.meta({
      description: '8 to 128 characters, not one of the 10 000 most common passwords',
      examples: ['violet-harbor-42-lantern'],
      beyondSchema: 'a new password must not be one of the 10 000 most common passwords',
    }),
  ))();

/** A password being checked: any length up to the maximum, so scrypt never sees a huge input. */
export const submittedPasswordSchema = z
  .string()
  .check(z.minLength(1, 'is required'), z.maxLength(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`));
