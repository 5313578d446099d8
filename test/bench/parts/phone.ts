// Phone-number parsing as shared/identity/targets.ts does it: libphonenumber-js/min, whose metadata
// (an 82 KB object literal) is built at import.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

export const parse = parsePhoneNumberFromString;

export const firstUse = () => parse('+8613800138000');
