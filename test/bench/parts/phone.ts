// Phone number parsing with libphonenumber-js's smallest metadata (what targets.ts uses).
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

export const parse = parsePhoneNumberFromString;
