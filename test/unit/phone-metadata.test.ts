import { parsePhoneNumberFromString as parseWithPackageMetadata } from 'libphonenumber-js/min';
import { describe, expect, it } from 'vitest';
import { phoneMetadataText } from '../../infra/tools/phone-metadata-source';
import { phoneMetadata } from '../../shared/identity/phone-metadata';
import { parsePhone } from '../../shared/identity/targets';

/**
 * The functions parse phone numbers with a packed copy of libphonenumber-js's smallest metadata
 * (shared/identity/phone-metadata.ts) instead of the object literal the package bundles. The copy
 * must be the installed package's, and parse exactly as the package itself would.
 */
describe('packed phone-number metadata', () => {
  it('is the installed libphonenumber-js metadata (run `npm run generate:phone-metadata` if not)', () => {
    expect(phoneMetadata()).toEqual(JSON.parse(phoneMetadataText()));
  });

  it('accepts, refuses and normalises numbers exactly as libphonenumber-js/min does', () => {
    const numbers = [
      '+8613800138000',
      '+86 138 0013 8000',
      '+86 10 6552 9988',
      '+1 (415) 555-2671',
      '+1 212 555 0100',
      '+44 20 7946 0958',
      '+44 7700 900123',
      '+49 30 901820',
      '+33 6 12 34 56 78',
      '+81 90-1234-5678',
      '+91 98765 43210',
      '+61 412 345 678',
      '+55 11 91234-5678',
      '+7 912 345-67-89',
      '+852 5123 4567',
      '+886 912 345 678',
      '+971 50 123 4567',
      '+234 803 123 4567',
      '+8613800',
      '+861380013800099',
      '+1 000 555 0100',
      '+999 1234 5678',
      '+44 20 7946 095',
      '13800138000',
      '+',
      'phone',
    ];
    const viaPackage = numbers.map((raw) => {
      const phone = parseWithPackageMetadata(raw.trim());
      return phone?.isValid() ? { kind: 'phone', value: phone.number, countryCallingCode: phone.countryCallingCode } : undefined;
    });
    expect(numbers.map(parsePhone)).toEqual(viaPackage);
    // The comparison means something only if both kinds of answer occur.
    expect(viaPackage.filter(Boolean).length).toBeGreaterThan(10);
    expect(viaPackage.filter((parsed) => !parsed).length).toBeGreaterThan(4);
  });
});
