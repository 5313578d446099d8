/**
 * Calendar dates in a person's own time zone, with the runtime's ICU (Node's full ICU, the same on
 * Lambda): offsets of :30 and :45, and daylight-saving changes, are ICU's to get right.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar date (YYYY-MM-DD) of a moment in a time zone; null is UTC. */
export function localDate(at: Date, timeZone: string | null): string {
  if (timeZone === null) return at.toISOString().slice(0, 10);
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(at).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** A calendar date `days` after (or before) another, by the calendar: no time zone involved. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/**
 * Region/City names as IANA writes them, and the few single names (UTC, EST ...): never an offset
 * like UTC+8. The request schema checks it (and the API reference states it as the pattern); the
 * service then asks ICU whether the zone exists.
 */
export const TIME_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * The IANA time zone a person named, as stored: ICU must know it (`Mars/Olympus` is refused, and
 * so is `UTC+8`, which is no zone name), and its case is ICU's when ICU names it the same way
 * (`asia/shanghai` -> `Asia/Shanghai`). An alias ICU knows under another name (`Asia/Kolkata`,
 * `Asia/Calcutta` in ICU) is kept as the person wrote it. Undefined when it is not a zone.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!TIME_ZONE_NAME.test(name)) return undefined;
  let resolved: string;
  try {
    resolved = formatterFor(name).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

const clockFormatters = new Map<string, Intl.DateTimeFormat>();

/** How far a time zone's wall clock is ahead of UTC at a moment, in ms (ICU's offsets, daylight saving included). */
function offsetMs(at: Date, timeZone: string): number {
  let formatter = clockFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    clockFormatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(at).map((part) => [part.type, Number(part.value)]));
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The moment a calendar date begins in a time zone (null is UTC): when a person's day starts, so
 * when a daily limit resets. Found from the offset at midnight, taken twice so that a date on
 * which daylight saving changes gets the offset in force at its start.
 */
export function startOfLocalDate(date: string, timeZone: string | null): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const midnightUtc = Date.UTC(year, month - 1, day);
  if (timeZone === null) return new Date(midnightUtc);
  const first = midnightUtc - offsetMs(new Date(midnightUtc), timeZone);
  return new Date(midnightUtc - offsetMs(new Date(first), timeZone));
}

/** The first day of the month after a date's (YYYY-MM-DD). */
export function firstOfNextMonth(date: string): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
}
