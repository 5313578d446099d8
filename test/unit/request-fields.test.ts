import { describe, expect, it } from 'vitest';
import { EVENT_VALUE_RULES, eventBody, loginBody } from '../../shared/behavior/schemas';
import { bindDeviceBody } from '../../shared/devices/schemas';
import { ValidationError } from '../../shared/errors';
import { codePointLength, languageTagSchema, textField } from '../../shared/fields';
import { idempotencyKey } from '../../shared/http/idempotency';
import { pageQuerySchema } from '../../shared/http/pagination';
import { usageQuery } from '../../shared/transcriptions/parameters';
import { newTranscriptionBody, transcriptionPatchBody } from '../../shared/transcriptions/schemas';

describe('text fields', () => {
  it('count code points, not UTF-16 units', () => {
    expect(codePointLength('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
    expect(codePointLength('字')).toBe(1);
    expect(codePointLength('')).toBe(0);
  });

  it('limit length in code points', () => {
    const field = textField(1, 3);
    expect(field.safeParse('😀😀😀').success).toBe(true);
    expect(field.safeParse('😀😀😀😀').success).toBe(false);
    expect(field.safeParse('').success).toBe(false);
  });

  it('refuse lone surrogates, which UTF-8 storage would alter', () => {
    expect(textField(0, 10).safeParse('a\ud800b').success).toBe(false);
    expect(textField(0, 10).safeParse('a\udc00').success).toBe(false);
    expect(textField(0, 10).safeParse('\ud83d\ude00').success).toBe(true);
  });

  it.each([
    ['en-US', true],
    ['zh-CN', true],
    ['yue-HK', true],
    ['es-419', true],
    ['en', false],
    ['en_US', false],
    ['EN-us', false],
    ['en-USA', false],
    ['zh-Hans-CN', false],
  ])('language %s valid: %s', (tag, valid) => {
    expect(languageTagSchema.safeParse(tag).success).toBe(valid);
  });
});

describe('behavior event values', () => {
  it('has a rule for every general type', () => {
    expect(Object.keys(EVENT_VALUE_RULES).sort()).toEqual(
      ['ambient_sound', 'language_choice', 'subtitle_layout', 'translation_on', 'voice_provider', 'volume_detection'],
    );
  });

  it('checks the value by the type', () => {
    expect(eventBody.safeParse({ eventType: 'translation_on', eventValue: 'true' }).success).toBe(true);
    expect(eventBody.safeParse({ eventType: 'translation_on', eventValue: 'azure' }).success).toBe(false);
    expect(eventBody.safeParse({ eventType: 'voice_provider', eventValue: 'azure' }).success).toBe(true);
    expect(eventBody.safeParse({ eventType: 'voice_provider', eventValue: 'true' }).success).toBe(true);
    expect(eventBody.safeParse({ eventType: 'language_choice', eventValue: 'top' }).success).toBe(false);
  });

  it('sends login events to their own endpoint, with one clear issue', () => {
    const result = eventBody.safeParse({ eventType: 'login', eventValue: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.message).toContain('/api/behavior/login');
  });

  it('refuses a blank login location', () => {
    expect(loginBody.safeParse({ location: ' ' }).success).toBe(false);
    expect(loginBody.safeParse({ location: 'Café' }).success).toBe(true);
  });
});

describe('devices', () => {
  it('upper-cases the mac', () => {
    expect(bindDeviceBody.parse({ sn: 'a.B_c-1', mac: 'aa:bb:cc:dd:ee:0f', productModel: 'x' }).mac).toBe('AA:BB:CC:DD:EE:0F');
  });
});

describe('transcriptions', () => {
  it('requires every field of a new record', () => {
    expect(newTranscriptionBody.safeParse({ recordTitle: 't', text: '', language: 'en-US', durationSeconds: 0 }).success).toBe(true);
    expect(newTranscriptionBody.safeParse({ recordTitle: 't', language: 'en-US', durationSeconds: 0 }).success).toBe(false);
  });

  it('needs at least one field in a patch', () => {
    expect(transcriptionPatchBody.safeParse({}).success).toBe(false);
    expect(transcriptionPatchBody.safeParse({ text: '' }).success).toBe(true);
  });
});

describe('query parameters', () => {
  it('default limit to 50 and days to 30', () => {
    expect(pageQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(usageQuery.parse({})).toEqual({ days: 30 });
  });

  it('take whole numbers in range only', () => {
    expect(pageQuerySchema.parse({ limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', '1e2', ' 5', '5 ', '0x10']) expect(pageQuerySchema.safeParse({ limit }).success, limit).toBe(false);
    expect(usageQuery.parse({ days: '366' }).days).toBe(366);
    expect(usageQuery.safeParse({ days: '367' }).success).toBe(false);
  });
});

describe('Idempotency-Key header', () => {
  it('is read whatever the case of its name', () => {
    expect(idempotencyKey({ 'idempotency-key': 'abc' })).toBe('abc');
    expect(idempotencyKey({ 'IDEMPOTENCY-KEY': 'abc' })).toBe('abc');
    expect(idempotencyKey({})).toBeUndefined();
  });

  it.each(['', ' ', 'a b', 'é', 'x'.repeat(256), 'tab\t'])('refuses %j', (key) => {
    expect(() => idempotencyKey({ 'Idempotency-Key': key })).toThrow(ValidationError);
  });

  it('accepts 255 visible ASCII characters', () => {
    const key = Array.from({ length: 255 }, (_, index) => String.fromCharCode(0x21 + (index % 94))).join('');
    expect(idempotencyKey({ 'Idempotency-Key': key })).toBe(key);
  });
});
