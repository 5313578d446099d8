// Phone-number parsing with the metadata libphonenumber-js/min bundles (an 82 KB object literal
// built at import): what the functions carried before shared/identity/phone-metadata.ts.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

export const parse = parsePhoneNumberFromString;

export const firstUse = () => parse('+8613800138000');
