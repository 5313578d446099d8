/**
 * Search in a person's own records: how a query is read, how text is folded for matching, and
 * the snippet around the first hit. Pure functions; the paging lives in the repository
 * (shared/db/transcriptions-repository.ts searchPage) and the rules in docs/search-and-export.md.
 *
 * Matching happens in the function, on the records as stored, not with a folded copy in the
 * table: a copy would double the bytes of every record (every list page and every save would pay
 * for it), and records saved before it existed would need a migration. A filter expression
 * cannot fold case, width or accents; DynamoDB bills the bytes it reads before filtering anyway.
 */

/** The folded form of a text: NFKC (full-width to half-width, ligatures), lower case, no accents. */
export function foldForSearch(value: string): string {
  // English and most titles: no normalization to do.
  if (ASCII.test(value)) return value.toLowerCase();
  return value.normalize('NFKD').toLowerCase().replace(ACCENTS, '').normalize('NFC');
}

// eslint-disable-next-line no-control-regex -- every code point below 128 is ASCII, control characters too
const ASCII = /^[\x00-\x7f]*$/;
/**
 * The combining diacritical marks of Latin, Greek and Cyrillic (é = e + U+0301 after NFKD). Not
 * every mark: the Japanese voiced marks (が = か + U+3099) and Indic vowel signs change the letter.
 */
const ACCENTS = /[\u0300-\u036f]/g;

/** The terms of a query: every one must occur (folded) in the record's title or text. */
export interface SearchQuery {
  /** Folded, in the order written; a quoted phrase is one term, spaces included. */
  terms: string[];
}

/** Double quotes as keyboards type them: ASCII, and the curly ones phones substitute. */
const QUOTES = /["\u201c\u201d\u201e\u201f]/g;

/** The most characters (code points) of a `q`, white space included. */
export const SEARCH_QUERY_MAX_LENGTH = 100;

/**
 * Why a `q` cannot be searched for; undefined when it can. Checked by the request schema, whose
 * parameter states the length (code points, as written) and that it is not blank.
 */
export function searchQueryProblem(q: string): string | undefined {
  const length = [...q].length;
  if (length < 1 || length > SEARCH_QUERY_MAX_LENGTH) return `must be 1 to ${SEARCH_QUERY_MAX_LENGTH} characters`;
  const trimmed = q.trim();
  if (trimmed === '') return 'must not be blank';
  if ((foldForSearch(trimmed).match(QUOTES)?.length ?? 0) % 2 === 1) return 'has an unbalanced double quote';
  if (parseSearchQuery(trimmed).terms.length === 0) return 'must contain a word';
  return undefined;
}

/**
 * Words separated by spaces (any Unicode white space, the ideographic one included), and parts in
 * double quotes kept whole. The query is folded first, so a full-width quote or space counts.
 */
export function parseSearchQuery(q: string): SearchQuery {
  const folded = foldForSearch(q.trim());
  const terms: string[] = [];
  folded.split(QUOTES).forEach((part, index) => {
    if (index % 2 === 1) {
      // Inside quotes: as written (folded), runs of spaces as one.
      const phrase = part.trim().replace(/\s+/gu, ' ');
      if (phrase) terms.push(phrase);
    } else {
      for (const word of part.split(/\s+/u)) if (word) terms.push(word);
    }
  });
  return { terms: [...new Set(terms)] };
}

export type MatchField = 'text' | 'recordTitle';

export interface SearchMatch {
  field: MatchField;
  /** At most SNIPPET_CODE_POINTS code points of that field, around its first hit. */
  snippet: string;
}

export const SNIPPET_CODE_POINTS = 160;

/**
 * Whether a record matches: every term in its title or its text (each field on its own: a term
 * does not span the two). Then `field` is `text` when the text holds a hit, else `recordTitle`.
 */
export function matchRecord(query: SearchQuery, record: { recordTitle: string; text: string }): SearchMatch | undefined {
  const title = foldForSearch(record.recordTitle);
  const text = foldForSearch(record.text);
  let textHit = false;
  for (const term of query.terms) {
    const inText = text.includes(term);
    if (!inText && !title.includes(term)) return undefined;
    textHit ||= inText;
  }
  const field: MatchField = textHit ? 'text' : 'recordTitle';
  return { field, snippet: snippetAround(record[field], query.terms) };
}

/**
 * Up to SNIPPET_CODE_POINTS code points of `value` around its first hit of any term, the hit as
 * near the middle as the ends allow. Cut on code points, so never half of a surrogate pair.
 */
export function snippetAround(value: string, terms: readonly string[]): string {
  const hit = firstHit(value, terms);
  const codePoints = Array.from(value);
  if (codePoints.length <= SNIPPET_CODE_POINTS) return value;
  if (!hit) return codePoints.slice(0, SNIPPET_CODE_POINTS).join('');
  const hitLength = Math.min(hit.end - hit.start, SNIPPET_CODE_POINTS);
  const before = Math.floor((SNIPPET_CODE_POINTS - hitLength) / 2);
  const start = Math.max(0, Math.min(hit.start - before, codePoints.length - SNIPPET_CODE_POINTS));
  return codePoints.slice(start, start + SNIPPET_CODE_POINTS).join('');
}

/**
 * One code point folded as foldForSearch folds it, without normalizing where nothing changes: ASCII
 * (lower case only) and the CJK Unified Ideographs (no decomposition, no case), most of what the
 * app's records hold, so a snippet deep in a long Chinese text costs a loop, not a normalization
 * per character (`npm run bench`, "search").
 */
export function foldCodePoint(codePoint: string): string {
  const code = codePoint.codePointAt(0)!;
  if (code < 0x80) return codePoint.toLowerCase();
  if (code >= 0x4e00 && code <= 0x9fff) return codePoint;
  return foldForSearch(codePoint);
}

/**
 * The first hit in `value`, in code points of the original. Folding may change lengths (ﬁ -> fi,
 * é -> e, ㌀ -> アパート), so the value is folded one code point at a time with a map back to
 * the original, stopping at the first place where a term ends.
 */
function firstHit(value: string, terms: readonly string[]): { start: number; end: number } | undefined {
  if (ASCII.test(value)) {
    const folded = value.toLowerCase();
    let best: { start: number; end: number } | undefined;
    for (const term of terms) {
      const at = folded.indexOf(term);
      if (at >= 0 && (!best || at < best.start)) best = { start: at, end: at + term.length };
    }
    return best;
  }
  let folded = '';
  /** For each UTF-16 unit of `folded`, the index of the original code point it came from. */
  const origin: number[] = [];
  const longest = Math.max(...terms.map((term) => term.length));
  let best: { start: number; end: number } | undefined;
  /** Once a hit is found, an earlier-starting one can only end within the longest term's reach. */
  let stopAt = Infinity;
  let index = 0;
  for (const codePoint of value) {
    if (folded.length >= stopAt) break;
    const part = foldCodePoint(codePoint);
    folded += part;
    for (let unit = 0; unit < part.length; unit++) origin.push(index);
    index++;
    for (const term of terms) {
      if (term.length > 0 && folded.endsWith(term)) {
        const start = origin[folded.length - term.length]!;
        if (!best || start < best.start) best = { start, end: index };
        stopAt = Math.min(stopAt, folded.length + longest);
      }
    }
  }
  return best;
}
