import * as z from 'zod/mini';
import type { ParsePayload } from 'zod/v4/core';
import { textField } from '../fields';
import { CODE_LENGTH } from './codes';
import { isCommonPassword } from './common-passwords';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';
import { emailTargetSchema, phoneTargetSchema } from './targets';
import type { Target } from './targets';

export const verifyCodeSchema = z.string().check(
  z.regex(new RegExp(`^\\d{${CODE_LENGTH}}$`), `must be ${CODE_LENGTH} digits`),
  z.meta({ description: 'The code from the e-mail or SMS', examples: ['123456'] }),
);

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
    z.meta({ description: '8 to 128 characters, not one of the 10 000 most common passwords', examples: ['violet-harbor-42-lantern'] }),
  ))();

/** A password being checked: any length up to the maximum, so scrypt never sees a huge input. */
export const submittedPasswordSchema = z
  .string()
  .check(z.minLength(1, 'is required'), z.maxLength(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`));

/**
 * `{phone}` or `{email}`, exactly one, resolved to a normalised target. Shared by login and
 * registration, which name the account either way.
 */
export const accountTargetFields = {
  email: z.optional(emailTargetSchema),
  phone: z.optional(phoneTargetSchema),
};

export function oneAccountTarget<T extends { email?: Target | undefined; phone?: Target | undefined }>(
  value: T,
  context: ParsePayload,
): (Omit<T, 'email' | 'phone'> & { target: Target }) {
  const { email, phone, ...rest } = value;
  if ((email === undefined) === (phone === undefined)) {
    context.issues.push({ code: 'custom', input: value, path: ['email'], message: 'give either email or phone, not both' });
    return z.NEVER;
  }
  return { ...rest, target: (email ?? phone)! };
}

/** For the API reference: login and registration name the account by exactly one of the two. */
export const EXACTLY_ONE_TARGET = { oneOf: [{ required: ['email'] }, { required: ['phone'] }] };

/** How the app names itself in the person's list of sessions; optional at every sign-in. */
export const clientNameSchema = textField(1, 64).check(
  z.refine((value) => value.trim().length > 0, 'must not be blank'),
  z.meta({ description: 'Names this session in `GET /api/auth/sessions`; else the User-Agent is used', examples: ['Pixel 8 · Captions 2.3'] }),
);

/** Any string: one that is not a refresh token of ours is a 401 (REFRESH_TOKEN_INVALID), not a 400. */
export const refreshTokenSchema = z.string().check(z.meta({ description: 'The refresh token of the latest sign-in or refresh' }));
