import * as z from 'zod/mini';
import { changePassword } from '../../shared/accounts/profile-service';
import { endpoint } from '../../shared/http/endpoint';
import { headerValue } from '../../shared/http/headers';
import { succeeded } from '../../shared/http/response';
import { newPasswordSchema, submittedPasswordSchema } from '../../shared/identity/password-schemas';
import { sessionName } from '../../shared/identity/session-service';

const body = z.object({
  currentPassword: z.optional(
    submittedPasswordSchema.check(
      z.meta({ description: 'Required when the account has a password', beyondSchema: '`currentPassword` is required once the account has a password' }),
    ),
  ),
  newPassword: newPasswordSchema,
});

export const handler = endpoint('PUT /api/users/me/password', {
  body,
  response: 'passwordChangedSchema',
  docs: {
    summary: 'Set or change the password',
    description:
      '`currentPassword` is required when the account has a password (wrong ones count toward the login lock); an account created by code sets its first one without. Every other session ends; this one goes on.',
    errors: ['INVALID_CREDENTIALS', 'LOGIN_LOCKED'],
  },
  run: async ({ body, caller, headers }, ctx) => {
    const { tokens } = await changePassword(ctx, caller, body.currentPassword, body.newPassword, sessionName(undefined, headerValue(headers, 'user-agent')));
    return { ...succeeded('Password changed.'), ...tokens };
  },
});
