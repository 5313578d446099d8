import { dictionary } from '@zxcvbn-ts/language-common';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../shared/identity/passwords';

/**
 * The refused-password list is derived from zxcvbn-ts's common-password dictionary (a frequency
 * ordered list from breach corpora, maintained with zxcvbn-ts): the most frequent entries that the
 * length rule would otherwise accept. Shorter ones are refused by the length rule already.
 */
export const COMMON_PASSWORD_COUNT = 10_000;

export function commonPasswordList(): string[] {
  const ranked = dictionary['passwords-common'] as string[];
  return ranked
    .filter((password) => password.length >= PASSWORD_MIN_LENGTH && password.length <= PASSWORD_MAX_LENGTH)
    .slice(0, COMMON_PASSWORD_COUNT)
    .sort();
}
