import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORD_COUNT, commonPasswordList } from '../../infra/tools/common-passwords-source';
import { commonPasswords, isCommonPassword } from '../../shared/identity/common-passwords';
import { newPasswordSchema } from '../../shared/identity/password-schemas';

describe('common password list', () => {
  it('holds exactly the generated list from @zxcvbn-ts/language-common (run `npm run generate:passwords` if not)', () => {
    const expected = commonPasswordList().map((password) => password.toLowerCase());
    expect(expected.length).toBe(COMMON_PASSWORD_COUNT);
    expect(new Set(expected)).toEqual(commonPasswords());
  });

  it('refuses well-known passwords whatever their case, and accepts a random one', () => {
    for (const password of ['password', 'PASSWORD', '12345678', 'qwertyuiop', 'iloveyou', 'Sunshine']) {
      expect(isCommonPassword(password)).toBe(true);
    }
    expect(isCommonPassword('correct horse battery staple 7f3a')).toBe(false);
  });

  it('makes the new-password schema fail with a message saying why', () => {
    const result = newPasswordSchema.safeParse('baseball');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/common/);
    expect(newPasswordSchema.safeParse('v3ry-uncommon-Passphrase').success).toBe(true);
  });
});
