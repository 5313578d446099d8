import * as z from 'zod/mini';
import { notBlank, textField } from '../fields';
import { snSchema } from './parameters';

// The bind body. The serial's rules and the path schema are in parameters.ts, so that unbind does
// not build this at cold start.

/** Six colon-separated pairs of hex digits (contract section 4), upper-case: one device, one spelling. */
const macSchema = z
  .pipe(
    z.string().check(z.regex(/^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/, 'must be six colon-separated hex pairs, like 00:1A:2B:3C:4D:5E')),
    z.transform((mac: string) => mac.toUpperCase()),
  )
  .check(z.meta({ description: 'Returned upper-case', examples: ['00:1A:2B:3C:4D:5E'] }));

/** 1 to 100 characters (seed section 2.7 leaves it open), not only spaces. */
const productModelSchema = textField(1, 100).check(
  notBlank(),
  z.meta({ examples: ['Caption Glasses 2'] }),
);

export const bindDeviceBody = z.object({ sn: snSchema, mac: macSchema, productModel: productModelSchema });
export type BindDeviceInput = z.output<typeof bindDeviceBody>;
