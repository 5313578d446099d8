import * as z from 'zod/mini';
import { notBlank, textField } from '../fields';

/** How the app names itself in the person's list of sessions; optional at every sign-in. */
export const clientNameSchema = textField(1, 64).check(
  notBlank(),
  z.meta({ description: 'Names this session in `GET /api/auth/sessions`; else the User-Agent is used', examples: ['Pixel 8 · Captions 2.3'] }),
);

/** Any string: one that is not a refresh token of ours is a 401 (REFRESH_TOKEN_INVALID), not a 400. */
export const refreshTokenSchema = z.string().check(z.meta({ description: 'The refresh token of the latest sign-in or refresh' }));
