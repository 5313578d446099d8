import * as z from 'zod/mini';
import { textField } from '../http/fields';

/**
 * Limits the seed leaves open (section 2.7), chosen here:
 * - `sn`: 1 to 64 characters of letters, digits, `.`, `_` and `-`, compared exactly (case
 *   matters: the app reads it from the device, it does not type it). It names the device in a
 *   path (`DELETE /api/devices/{sn}`) and in keys, so nothing that needs escaping is allowed.
 * - `mac`: six colon-separated pairs of hex digits (contract section 4), stored and returned
 *   upper-case so that one device has one spelling.
 * - `productModel`: 1 to 100 characters, not only spaces.
 */
export const SN_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const snSchema = z.string().check(
  z.regex(SN_PATTERN, 'must be 1 to 64 letters, digits, ".", "_" or "-"'),
  z.meta({ description: 'Serial number, compared exactly', examples: ['CAP2-00042317'] }),
);

export const macSchema = z
  .pipe(
    z.string().check(z.regex(/^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/, 'must be six colon-separated hex pairs, like 00:1A:2B:3C:4D:5E')),
    z.transform((mac: string) => mac.toUpperCase()),
  )
  .check(z.meta({ description: 'Returned upper-case', examples: ['00:1A:2B:3C:4D:5E'] }));

export const productModelSchema = textField(1, 100).check(
  z.refine((value) => value.trim().length > 0, 'must not be blank'),
  z.meta({ examples: ['Caption Glasses 2'] }),
);

export const bindDeviceBody = z.object({ sn: snSchema, mac: macSchema, productModel: productModelSchema });
export type BindDeviceInput = z.output<typeof bindDeviceBody>;

export const devicePathParams = z.object({ sn: snSchema });
