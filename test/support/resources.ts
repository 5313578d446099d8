import { expect } from 'vitest';
import { signIn, uniqueEmail } from './local-api';
import type { ApiResponse, LocalApi } from './local-api';

/** A signed-in account: its token and id. */
export interface Account {
  token: string;
  userId: number;
}

export async function newAccount(api: LocalApi, label = 'user'): Promise<Account> {
  const session = await signIn(api, uniqueEmail(label));
  return { token: session.token, userId: session.userId };
}

export const newAccounts = (api: LocalApi, count: number, label = 'user') =>
  Promise.all(Array.from({ length: count }, (_, index) => newAccount(api, `${label}${index}`)));

export const sampleRecord = (overrides: Record<string, unknown> = {}) => ({
  recordTitle: 'Standup',
  text: 'Good morning, everyone.',
  language: 'en-US',
  durationSeconds: 60,
  ...overrides,
});

/** Saves a record and fails the test unless it was saved. */
export async function saveRecord(api: LocalApi, account: Account, overrides: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const response = await api.request('POST', '/api/transcriptions', { token: account.token, body: sampleRecord(overrides), headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export async function postEvent(api: LocalApi, account: Account, eventType: string, eventValue: string) {
  const response = await api.request('POST', '/api/behavior/events', { token: account.token, body: { eventType, eventValue } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/**
 * Follows a list from its first page to its last through X-Next-Cursor, checking that the Link
 * header points to the same next page; returns every page.
 */
export async function walkList(api: LocalApi, path: string, account: Account, limit: number, between?: () => Promise<void>) {
  const pages: ApiResponse<any[]>[] = [];
  let url = `${path}?limit=${limit}`;
  for (;;) {
    const response = await api.request<any[]>('GET', url, { token: account.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.length).toBeLessThanOrEqual(limit);
    pages.push(response);
    const cursor = response.headers.get('x-next-cursor');
    if (!cursor) {
      expect(response.headers.get('link')).toBeNull();
      return pages;
    }
    const link = response.headers.get('link');
    expect(link).toMatch(/^<[^>]+>; rel="next"$/);
    const next = new URL(link!.slice(1, link!.indexOf('>')), `${api.url}${url}`);
    expect(next.searchParams.get('cursor')).toBe(cursor);
    url = `${next.pathname}${next.search}`;
    if (between) await between();
  }
}
