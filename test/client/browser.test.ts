import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, newPageWatchingErrors } from '../support/headless-chromium';
import { latestCode, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { useClientPageInChromium } from './support';

/**
 * The client in a real browser: headless Chromium (Debian's package, driven by playwright-core as
 * the /docs test does) loads the built client, one minified ES module, from a page of another
 * origin than the API (so CORS is part of it), signs in with a code, saves a record and reads the
 * app-open summary, with localStorage as its storage.
 */
const skipReason = chromiumMissing('client-browser');

let api: LocalApi;
let browser: BrowserContext;
let pageUrl: string;

const PAGE = `<!doctype html><html><head><title>client</title>
<script type="module">import * as captioning from './client.js'; window.captioning = captioning; document.title = 'ready';</script>
</head><body></body></html>`;

useClientPageInChromium('client-browser', PAGE, (setup) => ({ api, browser, pageUrl } = setup), { skip: skipReason });

describe('the client in a browser', () => {
  it.skipIf(skipReason)('signs in, saves a record and reads the summary, keeping the session in localStorage', async () => {
    const { page, problems } = await newPageWatchingErrors(browser);
    try {
      await page.goto(pageUrl);
      await page.waitForFunction("document.title === 'ready'");
      const target = uniqueEmail('browser');
      await page.evaluate(
        async ({ baseUrl, target }) => {
          const page = globalThis as any;
          const client = page.captioning.createClient({ baseUrl, storage: page.localStorage, clientName: 'Chromium test' });
          page.client = client;
          await client.auth.sendCode({ type: 'email', target });
        },
        { baseUrl: api.url, target },
      );
      // The person reads the code from their mail.
      const verifyCode = latestCode(api, target);
      const result = await page.evaluate(
        async ({ target, verifyCode }) => {
          const page = globalThis as any;
          const client = page.client;
          const session = await client.auth.verifyCode({ target, verifyCode });
          const record = await client.transcriptions.create({ recordTitle: 'From the browser', text: 'Hello from Chromium', language: 'en-US', durationSeconds: 42 });
          await client.events.track('subtitle_layout', 'top');
          const flushed = await client.events.flush();
          const summary = await client.users.summary();
          return { session, record, flushed, summary, stored: JSON.parse(page.localStorage.getItem('captioning.session') ?? 'null') };
        },
        { target, verifyCode },
      );
      expect(result.record).toMatchObject({ recordTitle: 'From the browser', durationSeconds: 42 });
      expect(result.flushed).toMatchObject({ sent: 1, count: 0 });
      expect(result.summary.user).toMatchObject({ userId: result.session.userId, email: target });
      expect(result.summary.usage.totalUsage).toBe(42);
      expect(result.summary.settings.subtitle_layout).toMatchObject({ value: 'top' });
      expect(result.stored).toMatchObject({ userId: result.session.userId });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
