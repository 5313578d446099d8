import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, newPageWatchingErrors } from '../support/headless-chromium';
import { latestCode, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { useClientPageInChromium } from './support';

/**
 * Passkeys in a real browser (issue 30): headless Chromium with its virtual authenticator (the
 * DevTools protocol's WebAuthn domain: a platform authenticator that keeps discoverable
 * credentials and verifies the person) registers a passkey and signs in through the built app
 * client, on a page served at http://localhost:<port>, a secure context as a person's browser
 * needs for WebAuthn. The page's ceremonies are the ones the client's README shows:
 * navigator.credentials with PublicKeyCredential's JSON helpers. The service runs with the RP ID
 * `localhost` (its default) and the page's origin as WEBAUTHN_ORIGINS.
 */
const skipReason = chromiumMissing('passkeys-browser');

let api: LocalApi;
let browser: BrowserContext;
let pageUrl: string;

const PAGE = `<!doctype html><html><head><title>passkeys</title>
<script type="module">
import * as captioning from './client.js';
window.captioning = captioning;
// The web's ceremonies, as an app passes them to the client.
window.createPasskey = async (options) =>
  (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) })).toJSON();
window.getPasskey = async (options) =>
  (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) })).toJSON();
document.title = 'ready';
</script>
</head><body></body></html>`;

useClientPageInChromium('passkeys-browser', PAGE, (setup) => ({ api, browser, pageUrl } = setup), { secureContext: true, skip: skipReason });

describe('passkeys in a browser', () => {
  it.skipIf(skipReason)("registers a passkey with Chromium's virtual authenticator and signs in with it through the client", async () => {
    const { page, problems } = await newPageWatchingErrors(browser);
    try {
      // A phone's platform authenticator: keeps discoverable credentials, verifies the person.
      const devtools = await page.context().newCDPSession(page);
      await devtools.send('WebAuthn.enable');
      const { authenticatorId } = await devtools.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });

      await page.goto(pageUrl);
      await page.waitForFunction("document.title === 'ready'");
      expect(await page.evaluate(() => (globalThis as any).isSecureContext)).toBe(true);

      const target = uniqueEmail('passkey-browser');
      await page.evaluate(
        async ({ baseUrl, target }) => {
          const page = globalThis as any;
          page.client = page.captioning.createClient({ baseUrl, storage: page.localStorage, clientName: 'Chromium test' });
          await page.client.auth.sendCode({ type: 'email', target });
        },
        { baseUrl: api.url, target },
      );
      const verifyCode = latestCode(api, target);
      const added = await page.evaluate(
        async ({ target, verifyCode }) => {
          const page = globalThis as any;
          const session = await page.client.auth.verifyCode({ target, verifyCode });
          const passkey = await page.client.auth.passkeys.add(page.createPasskey, { name: 'Chromium' });
          const listed = await page.client.auth.passkeys.list();
          await page.client.auth.logout();
          return { session, passkey, listed, storedAfterLogout: page.localStorage.getItem('captioning.session') };
        },
        { target, verifyCode },
      );
      expect(added.passkey).toMatchObject({ name: 'Chromium', lastUsedAt: null, passkeyId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(added.listed).toEqual([added.passkey]);
      expect(added.storedAfterLogout).toBeNull();
      // The authenticator holds it as a discoverable credential for the RP ID localhost.
      const { credentials } = await devtools.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

      // Signed out, nobody typing a name: the platform offers the passkey, the client signs in.
      const result = await page.evaluate(
        async ({ baseUrl }) => {
          const page = globalThis as any;
          const client = page.captioning.createClient({ baseUrl, storage: page.localStorage, clientName: 'Chromium test' });
          const session = await client.auth.signInWithPasskey(page.getPasskey);
          const me = await client.users.me();
          const record = await client.transcriptions.create({ recordTitle: 'Passkey in Chromium', text: 'Hello', language: 'en-US', durationSeconds: 5 });
          const listed = await client.auth.passkeys.list();
          return { session, me, record, listed, stored: JSON.parse(page.localStorage.getItem('captioning.session') ?? 'null') };
        },
        { baseUrl: api.url },
      );
      expect(result.session).toMatchObject({ code: 0, userId: added.session.userId, email: target });
      expect(result.stored).toMatchObject({ token: result.session.token, userId: added.session.userId });
      expect(result.me).toMatchObject({ userId: added.session.userId, email: target });
      expect(result.record).toMatchObject({ recordTitle: 'Passkey in Chromium' });
      expect(result.listed[0].lastUsedAt).toEqual(expect.any(String));
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
