import * as z from 'zod/mini';

/**
 * `sn`, a limit the seed leaves open (section 2.7), chosen here: 1 to 64 characters of letters,
 * digits, `.`, `_` and `-`, compared exactly (case matters: the app reads it from the device, it
 * does not type it). It names the device in a path (`DELETE /api/devices/{sn}`) and in keys, so
 * nothing that needs escaping is allowed.
 */
const SN_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const snSchema = z.string().check(
  z.regex(SN_PATTERN, 'must be 1 to 64 letters, digits, ".", "_" or "-"'),
  z.meta({ description: 'Serial number, compared exactly', examples: ['CAP2-00042317'] }),
);

export const devicePathParams = z.object({ sn: snSchema });
