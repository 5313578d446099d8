import { describe, expect, it } from 'vitest';
import { median, pairedRatio, ratio } from '../bench/stats';

describe('benchmark ratios', () => {
  it('takes each sample with the floor measured next to it, so the machine switching between quiet and busy does not move the ratio', () => {
    // A function 1.1 x its floor, on a machine that is quiet (floor 30 ms) or busy (45 ms) by
    // turns, with one pair disturbed on the function's side only.
    const floors = [30, 45, 30, 45, 30];
    const values = [33, 49.5, 33, 49.5, 45];
    expect(pairedRatio(values, floors)).toBe(1.1);
    // The ratio of the two medians compares a busy median with a quiet one.
    expect(ratio(median(values), median(floors))).toBe(1.5);
  });

  it('refuses series that are not pairs', () => {
    expect(() => pairedRatio([1, 2, 3], [1, 2])).toThrow(/unpaired/);
  });
});
