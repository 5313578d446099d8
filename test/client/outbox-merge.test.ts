import { describe, expect, it } from 'vitest';
import { changedFields, mergeRecord } from '../../client/src/outbox';
import type { SyncedRecord } from '../../client/src/outbox';

/** The outbox's three-way merge after a 412, as a function: base, this device's record, the service's. */
const base = { recordTitle: 'Standup', text: 'Good morning.', language: 'en-US', durationSeconds: 60, startedAt: '2026-11-20T09:00:00Z', revision: 1, createdAt: '2026-11-20T09:01:00Z', updatedAt: null };
const service = (changes: Partial<SyncedRecord>, updatedAt = '2026-11-20T10:00:00Z'): SyncedRecord => ({
  ...base,
  transcriptionRecordId: 7,
  clientRecordId: '0f6c7a52-6a55-4d5b-9a3e-0d2f1a9c8b11',
  revision: 2,
  updatedAt,
  ...changes,
});
const editedAt = (iso: string) => Date.parse(iso);

describe('the outbox merge', () => {
  it('keeps both edits when each side changed a different field', () => {
    const merged = mergeRecord({ base, local: { ...base, recordTitle: 'Standup, Monday' }, editedAt: editedAt('2026-11-20T09:30:00Z') }, service({ text: 'Good morning, everyone.' }));
    expect(merged.local).toMatchObject({ recordTitle: 'Standup, Monday', text: 'Good morning, everyone.' });
    expect(merged.fields).toEqual([]);
    expect(merged.copy).toBeUndefined();
    expect(changedFields({ local: merged.local, base: service({ text: 'Good morning, everyone.' }) })).toEqual({ recordTitle: 'Standup, Monday' });
  });

  it('lets the later edit win a field both changed, by this device\'s edit time against the service\'s updatedAt', () => {
    const current = service({ recordTitle: 'Their title', durationSeconds: 90 }, '2026-11-20T10:00:00Z');
    const local = { ...base, recordTitle: 'My title', durationSeconds: 75 };
    const earlier = mergeRecord({ base, local, editedAt: editedAt('2026-11-20T09:59:00Z') }, current);
    expect(earlier.local).toMatchObject({ recordTitle: 'Their title', durationSeconds: 90 });
    expect(earlier.fields.map((field) => [field.field, field.kept])).toEqual([
      ['recordTitle', 'theirs'],
      ['durationSeconds', 'theirs'],
    ]);
    const later = mergeRecord({ base, local, editedAt: editedAt('2026-11-20T10:01:00Z') }, current);
    expect(later.local).toMatchObject({ recordTitle: 'My title', durationSeconds: 75 });
    expect(later.fields.every((field) => field.kept === 'mine')).toBe(true);
  });

  it('keeps both texts: the service\'s in the record, this device\'s as a conflict copy of no duration', () => {
    const merged = mergeRecord({ base, local: { ...base, text: 'Mine.' }, editedAt: editedAt('2026-11-20T11:00:00Z') }, service({ text: 'Theirs.' }));
    expect(merged.local.text).toBe('Theirs.');
    expect(merged.copy).toEqual({ recordTitle: 'Standup (conflict copy)', text: 'Mine.', language: 'en-US', durationSeconds: 0, startedAt: base.startedAt });
    expect(merged.fields).toEqual([{ field: 'text', mine: 'Mine.', theirs: 'Theirs.', kept: 'theirs' }]);
  });

  it('finds no conflict when both sides made the same change (a PATCH whose answer was lost)', () => {
    const merged = mergeRecord({ base, local: { ...base, text: 'Same.' }, editedAt: Date.now() }, service({ text: 'Same.' }));
    expect(merged.fields).toEqual([]);
    expect(changedFields({ local: merged.local, base: service({ text: 'Same.' }) })).toEqual({});
  });

  it('keeps a conflict copy\'s title within the service\'s 200 characters', () => {
    const long = 'T'.repeat(200);
    const merged = mergeRecord({ base: { ...base, recordTitle: long }, local: { ...base, recordTitle: long, text: 'Mine.' }, editedAt: 0 }, service({ recordTitle: long, text: 'Theirs.' }));
    expect(merged.copy!.recordTitle).toHaveLength(200);
    expect(merged.copy!.recordTitle.endsWith(' (conflict copy)')).toBe(true);
  });
});
