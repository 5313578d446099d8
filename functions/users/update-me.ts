import { profilePatchBody } from '../../shared/accounts/schemas';
import { updateSettings } from '../../shared/accounts/profile-service';
import { endpoint } from '../../shared/http/endpoint';

export const handler = endpoint('PATCH /api/users/me', {
  body: profilePatchBody,
  response: 'userSchema',
  docs: {
    summary: 'Change the time zone or locale',
    description:
      'Any of `timeZone` (an IANA name the service knows, or null for UTC) and `locale`, at least one. Usage already counted stays on the days it fell on; records saved from then on count in the new zone.',
  },
  run: ({ body, caller }, ctx) => updateSettings(ctx, caller, body),
});
