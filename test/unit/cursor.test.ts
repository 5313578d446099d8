import { describe, expect, it } from 'vitest';
import { DEVICE_LIST } from '../../shared/db/devices-repository';
import { eventList } from '../../shared/db/events-repository';
import { decodeCursor, encodeCursor } from '../../shared/db/pagination';
import { TRANSCRIPTION_LIST } from '../../shared/db/transcriptions-repository';
import { ValidationError } from '../../shared/errors';

const partition = 'USER#42';
const recordKey = { PK: partition, SK: 'TRX#2030-01-02T03:04:05.678Z#0000000000000123' };
const deviceKey = { PK: partition, SK: 'DEVICE#SN-1', LSK: 'DEV#2030-01-02T03:04:05.678Z#SN-1' };
const eventKey = { PK: partition, SK: 'EVENT#voice_provider#2030-01-02T03:04:05.678Z#0000000000000007' };
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const refused = (cursor: string, shape = TRANSCRIPTION_LIST) => {
  try {
    decodeCursor(cursor, partition, shape);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details[0]?.path).toBe('query.cursor');
    return true;
  }
  return false;
};

describe('list cursors', () => {
  it('read back the key they were made from, for table and index listings', () => {
    expect(decodeCursor(encodeCursor(recordKey), partition, TRANSCRIPTION_LIST)).toEqual(recordKey);
    expect(decodeCursor(encodeCursor(deviceKey), partition, DEVICE_LIST)).toEqual(deviceKey);
    expect(decodeCursor(encodeCursor(eventKey), partition, eventList('voice_provider'))).toEqual(eventKey);
  });

  it('are URL-safe text', () => {
    expect(encodeCursor(deviceKey)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuse another account’s partition', () => {
    expect(refused(encodeCursor({ ...recordKey, PK: 'USER#43' }))).toBe(true);
    expect(refused(encodeCursor({ ...recordKey, PK: 'USER#420' }))).toBe(true);
  });

  it('refuse keys of another list', () => {
    expect(refused(encodeCursor(eventKey))).toBe(true);
    expect(refused(encodeCursor(recordKey), DEVICE_LIST)).toBe(true);
    expect(refused(encodeCursor(eventKey), eventList('translation_on'))).toBe(true);
    expect(refused(encodeCursor({ ...deviceKey, SK: 'PROFILE' }), DEVICE_LIST)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c'],
    ['not JSON', Buffer.from('{nope').toString('base64url')],
    ['an array', encode(['USER#42', 'TRX#x'])],
    ['null', encode(null)],
    ['a number', encode(7)],
    ['missing SK', encode({ PK: partition })],
    ['an extra attribute', encode({ ...recordKey, LSK: 'TRX#x' })],
    ['a numeric SK', encode({ ...recordKey, SK: 1 })],
    ['a sort key with trailing text', encode({ ...recordKey, SK: `${recordKey.SK}#more` })],
    ['a short id', encode({ ...recordKey, SK: 'TRX#2030-01-02T03:04:05.678Z#123' })],
    ['a non-canonical encoding', `${encodeCursor(recordKey)}=`],
    ['too long', 'A'.repeat(2049)],
  ])('refuse a cursor that is %s', (_label, cursor) => {
    expect(refused(cursor)).toBe(true);
  });
});
