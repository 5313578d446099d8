import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config';
import { SUPPORTED_LOCALES, renderCodeMessage } from '../../shared/identity/messages';
import type { Locale } from '../../shared/identity/messages';

/**
 * SMS verification texts fit one segment in every language (issue 7): 160 septets when the text
 * is GSM-7 (3GPP TS 23.038; the extension characters take two), else 70 UTF-16 code units (UCS-2,
 * an astral character takes two). Checked with the longest APP_NAME the settings allow, in the
 * worst alphabets for each encoding, and code validities up to a day.
 */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '^{}\\[~]|€\f';

/** One segment's worth: septets in GSM-7, code units in UCS-2. */
function segmentUse(text: string): { encoding: 'GSM-7' | 'UCS-2'; used: number; limit: number } {
  const characters = [...text];
  if (characters.every((character) => GSM7_BASIC.includes(character) || GSM7_EXTENSION.includes(character))) {
    const septets = characters.reduce((sum, character) => sum + (GSM7_EXTENSION.includes(character) ? 2 : 1), 0);
    return { encoding: 'GSM-7', used: septets, limit: 160 };
  }
  return { encoding: 'UCS-2', used: text.length, limit: 70 };
}

const MAX_APP_NAME = 20;
const appNames = {
  'GSM-7 letters': 'A'.repeat(MAX_APP_NAME),
  'GSM-7 extension characters (two septets each)': '[]{}~|€^\\'.repeat(3).slice(0, MAX_APP_NAME),
  Chinese: '实时字幕眼镜助手'.repeat(3).slice(0, MAX_APP_NAME),
  'emoji (two code units each)': '🎧'.repeat(MAX_APP_NAME / 2),
};
const validities = [1, 10, 1440];

describe('SMS verification texts', () => {
  it('are tested with APP_NAMEs of the longest length the settings allow', () => {
    for (const name of Object.values(appNames)) expect(parseConfig({ TABLE_NAME: 't', APP_NAME: name }).APP_NAME).toBe(name);
    expect(() => parseConfig({ TABLE_NAME: 't', APP_NAME: `${appNames['GSM-7 letters']}A` })).toThrow(/APP_NAME/);
  });

  for (const locale of SUPPORTED_LOCALES) {
    for (const [kind, appName] of Object.entries(appNames)) {
      it(`fit one segment in ${locale} with a 20-character app name of ${kind}`, () => {
        for (const validMinutes of validities) {
          const { text } = renderCodeMessage('sms', locale as Locale, { appName, code: '012345', validMinutes });
          const use = segmentUse(text);
          expect(use.used, `${use.encoding}: ${text}`).toBeLessThanOrEqual(use.limit);
        }
      });
    }
  }

  it('are GSM-7 in English and UCS-2 in Chinese for a Latin app name', () => {
    const args = { appName: 'Captions', code: '012345', validMinutes: 10 };
    expect(segmentUse(renderCodeMessage('sms', 'en', args).text).encoding).toBe('GSM-7');
    expect(segmentUse(renderCodeMessage('sms', 'zh-CN', args).text).encoding).toBe('UCS-2');
  });

  it('carry the app name, the code and its validity in each language', () => {
    const args = { appName: 'Captions', code: '012345', validMinutes: 10 };
    expect(renderCodeMessage('sms', 'en', args).text).toBe('[Captions] Code: 012345. Valid 10 min. Do not share it.');
    expect(renderCodeMessage('sms', 'zh-CN', args).text).toBe('【Captions】您的验证码是012345，10分钟内有效，请勿泄露。');
  });

  it('count a segment as carriers do: extension characters take two septets, astral characters two code units', () => {
    expect(segmentUse('[]')).toEqual({ encoding: 'GSM-7', used: 4, limit: 160 });
    expect(segmentUse('验证码🎧')).toEqual({ encoding: 'UCS-2', used: 5, limit: 70 });
  });
});
