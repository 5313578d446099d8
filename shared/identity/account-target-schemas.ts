import * as z from 'zod/mini';
import type { ParsePayload } from 'zod/v4/core';
import { phoneTargetSchema } from './phone-targets';
import { emailTargetSchema } from './targets';
import type { Target } from './targets';

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
