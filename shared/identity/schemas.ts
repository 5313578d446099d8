import * as z from 'zod';
import { CODE_LENGTH } from './codes';
import { isCommonPassword } from './common-passwords';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';
import { emailTargetSchema, phoneTargetSchema } from './targets';
import type { Target } from './targets';

export const verifyCodeSchema = z
  .string()
  .regex(new RegExp(`^\\d{${CODE_LENGTH}}$`), `must be ${CODE_LENGTH} digits`)
  .meta({ description: 'The code from the e-mail or SMS', examples: ['123456'] });

/**
 * A new password: 8 to 128 characters (contract section 3) and not a common one.
 * `@__PURE__` lets esbuild drop this schema, and with it the 36 KB common-password list, from the
 * functions that never take a new password (login, verify): zod calls are not side-effect free to it.
 */
export const newPasswordSchema = /* @__PURE__ */ z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .refine((password) => !isCommonPassword(password), 'is one of the most common passwords and easy to guess; choose another')
  .meta({ description: '8 to 128 characters, not one of the 10 000 most common passwords', examples: ['violet-harbor-42-lantern'] });

/** A password being checked: any length up to the maximum, so scrypt never sees a huge input. */
export const submittedPasswordSchema = z.string().min(1, 'is required').max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

/**
 * `{phone}` or `{email}`, exactly one, resolved to a normalised target. Shared by login and
 * registration, which name the account either way.
 */
export const accountTargetFields = {
  email: emailTargetSchema.optional(),
  phone: phoneTargetSchema.optional(),
};

export function oneAccountTarget<T extends { email?: Target | undefined; phone?: Target | undefined }>(
  value: T,
  context: z.RefinementCtx,
): (Omit<T, 'email' | 'phone'> & { target: Target }) {
  const { email, phone, ...rest } = value;
  if ((email === undefined) === (phone === undefined)) {
    context.addIssue({ code: 'custom', path: ['email'], message: 'give either email or phone, not both' });
    return z.NEVER;
  }
  return { ...rest, target: (email ?? phone)! };
}

/** For the API reference: login and registration name the account by exactly one of the two. */
export const EXACTLY_ONE_TARGET = { oneOf: [{ required: ['email'] }, { required: ['phone'] }] };
