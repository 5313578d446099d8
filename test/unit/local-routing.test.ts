import { describe, expect, it } from 'vitest';
import { literalSegmentsFirst } from '../../infra/local/server';

describe('local server route order', () => {
  it('tries a literal segment before a {parameter} in the same place, as API Gateway does, whatever the table order', () => {
    const table = ['/api/transcriptions/{id}', '/api/devices/{sn}', '/api/transcriptions/usage', '/api/v1/{proxy}/x', '/api/v1/transcriptions/{id}'];
    for (const order of [table, [...table].reverse()]) {
      const sorted = [...order].sort(literalSegmentsFirst);
      expect(sorted.indexOf('/api/transcriptions/usage')).toBeLessThan(sorted.indexOf('/api/transcriptions/{id}'));
      expect(sorted.indexOf('/api/v1/transcriptions/{id}')).toBeLessThan(sorted.indexOf('/api/v1/{proxy}/x'));
    }
  });

  it('keeps the table order where no segment decides', () => {
    const table = ['/api/devices', '/api/transcriptions', '/api/devices/{sn}', '/api/transcriptions/{id}'];
    expect([...table].sort(literalSegmentsFirst)).toEqual(table);
  });
});
