import type { Clock } from '../../shared/ports/clock';

/** A clock tests can move forward to expire codes, cooldowns, locks and tokens. */
export class MovableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /** Jumps to a moment (then runs on from it): tests that must not straddle a UTC midnight. */
  set(date: Date): void {
    this.offsetMs = date.getTime() - Date.now();
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
