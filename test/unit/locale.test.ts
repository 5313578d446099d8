import { describe, expect, it } from 'vitest';
import { chooseLocale, renderCodeMessage } from '../../shared/identity/messages';

describe('chooseLocale', () => {
  it('takes the locale field first', () => {
    expect(chooseLocale('zh-CN', 'en-US')).toBe('zh-CN');
    expect(chooseLocale('en', 'zh-CN')).toBe('en');
    expect(chooseLocale('zh-cn', undefined)).toBe('zh-CN');
  });

  it('then Accept-Language', () => {
    expect(chooseLocale(undefined, 'zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'fr-FR, zh;q=0.5')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'en-GB,en;q=0.9')).toBe('en');
    // An unsupported locale field falls through to the header.
    expect(chooseLocale('fr', 'zh-CN')).toBe('zh-CN');
  });

  it('honours Accept-Language weights, not just their order (RFC 9110 12.5.4)', () => {
    expect(chooseLocale(undefined, 'en;q=0.3, zh-CN;q=0.9')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'zh-CN;q=0.1, en')).toBe('en');
    // q=0 means "not acceptable".
    expect(chooseLocale(undefined, 'zh-CN;q=0, fr')).toBe('en');
  });

  it('defaults to English', () => {
    expect(chooseLocale(undefined, undefined)).toBe('en');
    expect(chooseLocale(undefined, '')).toBe('en');
    expect(chooseLocale(undefined, 'de-DE, fr;q=0.8, *;q=0.1')).toBe('en');
    expect(chooseLocale('', 'garbage;;;,,')).toBe('en');
  });
});

describe('renderCodeMessage', () => {
  const args = { appName: 'Captions', code: '012345', validMinutes: 10 };

  it('renders the code and its validity in the chosen language', () => {
    const en = renderCodeMessage('email', 'en', args);
    expect(en.subject).toContain('Captions');
    expect(en.text).toContain('012345');
    expect(en.text).toContain('10 minutes');
    const zh = renderCodeMessage('sms', 'zh-CN', args);
    expect(zh.text).toContain('012345');
    expect(zh.text).toContain('验证码');
  });

  it('keeps SMS texts within one segment (160 GSM-7 or 70 UCS-2 characters)', () => {
    const long = { ...args, appName: 'A'.repeat(20) };
    expect(renderCodeMessage('sms', 'en', long).text.length).toBeLessThanOrEqual(160);
    expect(renderCodeMessage('sms', 'zh-CN', long).text.length).toBeLessThanOrEqual(70);
  });
});
