import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { safeParse } from 'zod/mini';
import { GENERATED_SHAPES_MODULE, responseSchemaNamed, responseSchemaNames, responseShapesSource, shapeOf } from '../../infra/tools/response-shapes';
import { shapeResponse } from '../../shared/http/response-shape';
import * as generated from '../../shared/http/response-shapes.generated';

/**
 * Functions shape their answers with the generated JSON Schema of their response schema instead of
 * zod (shared/http/response-shape.ts). These tests hold the two to the same answers: for a valid
 * sample of every response schema, and for every variant of it with one field broken, removed or
 * added, the shape and zod accept and reject alike, keep the same fields in the same order, and
 * name the same paths.
 */
const TIME = '2026-01-29T10:30:00Z';
const user = { userId: 7, phone: '+8613800138000', email: null, createdAt: TIME, updatedAt: TIME };
const device = { sn: 'CAP2-1', userId: 7, mac: '00:1A:2B:3C:4D:5E', productModel: 'Caption Glasses 2', createdAt: TIME };
const record = {
  transcriptionRecordId: 3,
  userId: 7,
  recordTitle: 'Standup',
  text: 'Hello 世界',
  textLength: 8,
  language: 'en-US',
  durationSeconds: 95,
  startedAt: TIME,
  createdAt: TIME,
  updatedAt: null,
};
const event = { eventId: 11, eventType: 'translation_on', eventValue: 'true', location: null, createdAt: TIME };

/** One valid result per response schema, as a handler would return it (extra internal fields included). */
const activeSession = { sessionId: 'p3Xq9vK2T0a8YbWcLm4N1g', clientName: 'Pixel 8', createdAt: TIME, lastUsedAt: TIME, current: true };
const tokens = { token: 'eyJ.x.y', refreshToken: '7.p3Xq9vK2T0a8YbWcLm4N1g.0.secret', expiresIn: 86_400 };

const SAMPLES: Record<string, unknown> = {
  activeSessionListSchema: [activeSession, { ...activeSession, current: false, seed: 'internal', generation: 3 }],
  activeSessionSchema: { ...activeSession, tokenVersion: 2 },
  behaviorEventListSchema: [event, { ...event, eventId: 12, eventType: 'login', eventValue: null, location: 'Shanghai', PK: 'USER#7' }],
  behaviorEventSchema: event,
  behaviorStatsSchema: { loginCount: 4, events: [{ eventType: 'voice_provider', count: 2, lastValue: 'azure', SK: 'x' }], version: 9 },
  codeSessionSchema: { code: 0, message: 'Login successful', ...tokens, ...user, passwordHash: 'scrypt$...' },
  deviceListSchema: [device, { ...device, sn: 'CAP2-2', createdAtMs: '2026-01-29T10:30:00.123Z' }],
  deviceSchema: { ...device, PK: 'DEVICE#CAP2-1' },
  endedSessionsSchema: { code: 0, message: 'Other sessions ended.', ended: 3 },
  healthSchema: { status: 'ok', time: TIME },
  passwordChangedSchema: { code: 0, message: 'Password changed.', ...tokens, seed: 'internal' },
  openApiDocumentSchema: { openapi: '3.1.0', info: { title: 'API' }, paths: {} },
  registeredUserSchema: { ...user, updatedAt: undefined, tokenVersion: 0 },
  refreshedSessionSchema: { ...tokens, userId: 7, seed: 'internal' },
  sessionSchema: { ...tokens, ...user },
  successSchema: { code: 0, message: 'Done' },
  transcriptionListSchema: [record, { ...record, transcriptionRecordId: 4, updatedAt: TIME, LSK: 'x' }],
  transcriptionRecordSchema: { ...record, GSI: 1 },
  usageSchema: { userId: 7, totalUsage: 300, dailyUsage: [{ date: '2026-01-29', usage: 300 }], PK: 'USER#7' },
  userSchema: { ...user, timeZone: 'Asia/Kolkata', locale: 'zh-CN', passwordHash: 'scrypt$...', tokenVersion: 3, 'session#x': 3 },
};

type Variant = { label: string; value: unknown };

/** Every variant of a value with one thing wrong or extra, at every depth. */
function variants(value: unknown, label = 'body'): Variant[] {
  const found: Variant[] = [];
  const wrong = [undefined, null, 'text', -1, 1.5, 0, true, {}, [], Number.NaN, '2026-01-29 10:30:00'];
  for (const replacement of wrong) found.push({ label: `${label} = ${String(replacement)}`, value: replacement });
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      for (const variant of variants(item, `${label}.${index}`)) {
        const copy = [...value];
        copy[index] = variant.value;
        found.push({ label: variant.label, value: copy });
      }
    });
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    found.push({ label: `${label} + extra`, value: { ...value, extra: 'internal' } });
    for (const [key, field] of entries) {
      const { [key]: _removed, ...without } = value as Record<string, unknown>;
      found.push({ label: `${label}.${key} removed`, value: without });
      for (const variant of variants(field, `${label}.${key}`)) found.push({ label: variant.label, value: { ...value, [key]: variant.value } });
    }
  }
  return found;
}

function both(name: string, value: unknown) {
  const zod = safeParse(responseSchemaNamed(name), value);
  const shaped = shapeResponse(shapeOf(name), value);
  return { zod, shaped };
}

describe('the generated response shapes', () => {
  it('are what `npm run generate:openapi` makes of today’s schemas (run it after changing one)', () => {
    expect(readFileSync(GENERATED_SHAPES_MODULE, 'utf8')).toBe(responseShapesSource());
  });

  it('exist for every response schema, each naming its own', () => {
    const specs = Object.entries(generated);
    expect(specs.map(([, spec]) => spec.schema).sort()).toEqual(responseSchemaNames());
    for (const [exported, spec] of specs) expect(exported).toBe(spec.schema.replace(/Schema$/, 'Response'));
    expect(Object.keys(SAMPLES).sort()).toEqual(responseSchemaNames());
  });
});

describe.each(Object.keys(SAMPLES))('%s: the shape answers as zod does', (name) => {
  it('keeps the same fields of a valid result, in the same order', () => {
    const { zod, shaped } = both(name, SAMPLES[name]);
    expect(zod.success).toBe(true);
    expect(shaped.ok).toBe(true);
    if (!zod.success || !shaped.ok) return;
    expect(JSON.stringify(shaped.value)).toBe(JSON.stringify(zod.data));
  });

  it('accepts and rejects every variant alike, naming the same paths', () => {
    const checked = variants(SAMPLES[name]);
    expect(checked.length).toBeGreaterThan(10);
    for (const { label, value } of checked) {
      const { zod, shaped } = both(name, value);
      expect(shaped.ok, label).toBe(zod.success);
      if (zod.success && shaped.ok) expect(JSON.stringify(shaped.value), label).toBe(JSON.stringify(zod.data));
      if (!zod.success && !shaped.ok) {
        const zodPaths = [...new Set(zod.error.issues.map((issue) => ['body', ...issue.path.map(String)].join('.')))];
        expect(shaped.paths, label).toEqual(zodPaths);
      }
    }
  });
});
