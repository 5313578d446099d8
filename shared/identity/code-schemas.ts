import * as z from 'zod/mini';
import { CODE_LENGTH } from './codes';

/**
 * The code field, in a module of its own like the other identity fields: a function that takes a
 * code with an e-mail address only (changing it) then bundles no phone-number parsing.
 */
export const verifyCodeSchema = z.string().check(
  z.regex(new RegExp(`^\\d{${CODE_LENGTH}}$`), `must be ${CODE_LENGTH} digits`),
  z.meta({ description: 'The code from the e-mail or SMS', examples: ['123456'] }),
);
