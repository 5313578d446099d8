import { describe, expect, it } from 'vitest';
import { foldCodePoint, foldForSearch, matchRecord, parseSearchQuery, searchQueryProblem, snippetAround } from '../../shared/transcriptions/search';

describe('folding one code point at a time (the snippet\'s map back to the original)', () => {
  it('folds every ASCII code point and every CJK Unified Ideograph exactly as the whole-text folding does', () => {
    const ranges: [number, number][] = [[0, 0x7f], [0x4e00, 0x9fff]];
    const differing: string[] = [];
    for (const [from, to] of ranges) {
      for (let code = from; code <= to; code++) {
        const codePoint = String.fromCodePoint(code);
        if (foldCodePoint(codePoint) !== foldForSearch(codePoint)) differing.push(code.toString(16));
      }
    }
    expect(differing).toEqual([]);
    // Elsewhere it is the whole-text folding itself: full width, ligatures, accents.
    expect(['Ａ', 'ﬁ', 'É', '㌀'].map(foldCodePoint)).toEqual(['a', 'fi', 'e', foldForSearch('㌀')]);
  });
});

describe('folding for search', () => {
  it.each([
    ['Café', 'cafe'],
    ['ＭＥＥＴＩＮＧ　１２', 'meeting 12'],
    ['ﬁle', 'file'],
    ['Ærø Ünïcödé', 'ærø unicode'],
    ['ｶﾀｶﾅ', 'カタカナ'],
    ['会議が', '会議が'],
  ])('%s -> %s', (value, folded) => {
    expect(foldForSearch(value)).toBe(folded);
  });
});

describe('reading a query', () => {
  it('splits words on any white space and keeps quoted phrases whole', () => {
    expect(parseSearchQuery('  Dose  "Three   PM"\u3000会议 ').terms).toEqual(['dose', 'three pm', '会议']);
  });

  it.each([
    ['', 'must be 1 to 100 characters'],
    ['a'.repeat(101), 'must be 1 to 100 characters'],
    [` ${'a'.repeat(100)}`, 'must be 1 to 100 characters'],
    ['  \u3000', 'must not be blank'],
    ['"open', 'has an unbalanced double quote'],
    ['""', 'must contain a word'],
  ])('refuses %j', (q, problem) => {
    expect(searchQueryProblem(q)).toBe(problem);
  });
});

describe('matching a record', () => {
  const record = { recordTitle: 'Visit to Dr. Müller', text: 'The dose is two tablets.' };

  it('needs every term in the title or the text', () => {
    expect(matchRecord(parseSearchQuery('muller dose'), record)).toEqual({ field: 'text', snippet: record.text });
    expect(matchRecord(parseSearchQuery('muller'), record)).toEqual({ field: 'recordTitle', snippet: record.recordTitle });
    expect(matchRecord(parseSearchQuery('muller dosage'), record)).toBeUndefined();
  });

  it('cuts the snippet on code points around the earliest hit, even when a later-starting term ends first', () => {
    const value = `${'😀'.repeat(200)}abcdef${'🙂'.repeat(200)}`;
    const snippet = snippetAround(value, ['abcdef', 'cd']);
    expect([...snippet].length).toBe(160);
    expect(snippet).toContain('abcdef');
    expect([...snippet.split('abcdef')[0]!].length).toBe(77);
  });

  it('finds the hit in the original when folding changed lengths before it', () => {
    const value = `${'ﬁ'.repeat(100)} é ${'x'.repeat(300)} ㌀ target ${'y'.repeat(300)}`;
    const snippet = snippetAround(value, ['target']);
    expect(snippet).toContain('㌀ target');
    expect([...snippet].length).toBe(160);
  });
});
