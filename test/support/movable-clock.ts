import type { Clock } from '../../shared/ports/clock';

/** A clock tests can move forward to expire codes, cooldowns, locks and tokens. */
export class MovableClock implements Clock {
  private offsetMs = 0;
  /** Set while frozen: the moment `now()` answers until the clock moves again. */
  private frozenAtMs: number | undefined;

  now(): Date {
    return new Date(this.frozenAtMs ?? Date.now() + this.offsetMs);
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
    if (this.frozenAtMs !== undefined) this.frozenAtMs += seconds * 1000;
  }

  /** Stops at a moment (until `set` or `reset`; `advance` moves it): tests of exact edges, such as "exactly 30 days ago". */
  freeze(date: Date): void {
    this.set(date);
    this.frozenAtMs = date.getTime();
  }

  /** Jumps to a moment (then runs on from it): tests that must not straddle a UTC midnight. */
  set(date: Date): void {
    this.offsetMs = date.getTime() - Date.now();
    this.frozenAtMs = undefined;
  }

  reset(): void {
    this.offsetMs = 0;
    this.frozenAtMs = undefined;
  }
}
