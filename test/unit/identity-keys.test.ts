import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { PARTITION_KEY, SORT_KEY } from '../../shared/db/table';

describe('identity key builders', () => {
  it('lay out each entity under its own prefix', () => {
    expect(keys.user(42)).toEqual({ [PARTITION_KEY]: 'USER#42', [SORT_KEY]: 'PROFILE' });
    expect(keys.identity('email', 'a@example.com')).toEqual({ PK: 'IDENTITY#email#a@example.com', SK: 'IDENTITY' });
    expect(keys.identity('phone', '+8613800138000')).toEqual({ PK: 'IDENTITY#phone#+8613800138000', SK: 'IDENTITY' });
    expect(keys.currentCode('+8613800138000')).toEqual({ PK: 'CODE#+8613800138000', SK: 'CURRENT' });
    expect(keys.codeDay('a@example.com', '2026-01-29')).toEqual({ PK: 'CODE#a@example.com', SK: 'DAY#2026-01-29' });
    expect(keys.loginFailures('user#42')).toEqual({ PK: 'LOGIN#user#42', SK: 'FAILURES' });
    expect(keys.idCounter('user')).toEqual({ PK: 'COUNTER#user', SK: 'COUNTER' });
  });

  it('are deterministic: the same input names the same item', () => {
    expect(keys.user(7)).toEqual(keys.user(7));
    expect(keys.currentCode('a@example.com')).toEqual(keys.currentCode('a@example.com'));
  });

  it('never give two different things the same key', () => {
    const all = [
      keys.user(1),
      keys.user(11),
      keys.identity('email', 'x'),
      keys.identity('phone', 'x'),
      keys.currentCode('x'),
      keys.codeDay('x', '2026-01-29'),
      keys.codeDay('x', '2026-01-30'),
      keys.loginFailures('user#1'),
      keys.loginFailures('email#x'),
      keys.idCounter('user'),
      keys.idCounter('event'),
    ].map((key) => `${key.PK}|${key.SK}`);
    expect(new Set(all).size).toBe(all.length);
  });

  it('keep the current code and the daily count of a target in one partition, apart by sort key', () => {
    const current = keys.currentCode('a@example.com');
    const day = keys.codeDay('a@example.com', '2026-01-29');
    expect(day.PK).toBe(current.PK);
    expect(day.SK).not.toBe(current.SK);
  });
});
