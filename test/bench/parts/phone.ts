// Phone-number parsing as shared/identity/targets.ts does it: libphonenumber-js/core with the packed
// metadata, which is unpacked only when the first number is parsed.
import { parsePhoneNumberFromString } from 'libphonenumber-js/core';
import { phoneMetadata } from '../../../shared/identity/phone-metadata';

export const parse = (text: string) => parsePhoneNumberFromString(text, phoneMetadata());

export const firstUse = () => parse('+8613800138000');
