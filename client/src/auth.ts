import type { ClientContext } from './context';
import type { paths } from './generated/api';
import { credentialBody, passkeysArea } from './passkeys';
import type { GetPasskey, SentAssertion } from './passkeys';
import { needsRefresh } from './session';
import type { TokenAnswer } from './session';
import { dataOf } from './transport';

type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;

/** SHA-256 of the text as lower-case hex, with the platform's WebCrypto; null without one. */
async function sha256Hex(text: string): Promise<string | null> {
  const subtle = (globalThis as { crypto?: { subtle?: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } } }).crypto?.subtle;
  if (!subtle) return null;
  const digest = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The timer's wait after a failed refresh: offline for a while should not mean a refresh a second. */
const RETRY_AFTER_FAILURE_MS = 30_000;

/**
 * Signing in and out, and keeping the session fresh. Each sign-in takes its endpoint's JSON body
 * and stores the session before it returns.
 */
export function authArea(context: ClientContext) {
  const { api, session, clientName } = context;
  const named = <B extends object>(body: B): B => (clientName && !('clientName' in body) ? { ...body, clientName } : body);
  async function signIn<T extends TokenAnswer>(call: (sentAt: number) => Promise<T>): Promise<T> {
    const sentAt = Date.now();
    const answer = await call(sentAt);
    await session.start(answer, sentAt);
    return answer;
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  /** Refreshes when due, then sets the timer for the next time it will be due. */
  async function check(): Promise<void> {
    let wait = RETRY_AFTER_FAILURE_MS;
    try {
      await session.accessToken();
      const current = await session.stored();
      if (!current) return stopAutoRefresh();
      if (needsRefresh(current)) throw new Error('refresh failed');
      wait = current.expiresAt - Math.min(60_000, current.lifetimeMs / 2) - Date.now() + 100;
    } catch (error) {
      if ((error as Error).name === 'SignedOutError') return stopAutoRefresh();
    }
    if (!running) return;
    clearTimeout(timer);
    timer = setTimeout(() => void check(), Math.max(1000, wait));
    (timer as { unref?: () => void }).unref?.();
  }
  function stopAutoRefresh(): void {
    running = false;
    clearTimeout(timer);
    timer = undefined;
  }

  return {
    /** Sends a code by e-mail or SMS: `{type: 'email' | 'sms', target}`. */
    sendCode: (body: Body<'/verify-code/send'>) => dataOf(api.POST('/verify-code/send', { body })),
    /** Signs in with the code: `{target, verifyCode}`. */
    verifyCode: (body: Body<'/verify-code/verify'>) => signIn(() => dataOf(api.POST('/verify-code/verify', { body: named(body) }))),
    /** Signs in with a password: `{email | phone, password}`. */
    login: (body: Body<'/auth/login'>) => signIn(() => dataOf(api.POST('/auth/login', { body: named(body) }))),
    /**
     * Signs in with a passkey: asks the service for options, runs the platform's ceremony with
     * them (`get`, see PasskeyCeremony), and has the service verify the assertion. `clientName`
     * names the session (default: the client's). A refusal, whatever failed, is ApiError 401
     * PASSKEY_INVALID.
     */
    async signInWithPasskey(get: GetPasskey, { clientName }: { clientName?: string } = {}) {
      const options = await dataOf(api.POST('/auth/passkey/options'));
      const response = credentialBody<SentAssertion>(await get(options));
      const body = named(clientName === undefined ? { response } : { response, clientName });
      return signIn(() => dataOf(api.POST('/auth/passkey/verify', { body })));
    },
    /**
     * A nonce for Sign in with Apple or Google (valid 10 minutes, once): give the provider
     * `hashedNonce` (its SHA-256, lower-case hex) and send `nonce` itself with the sign-in.
     * `hashedNonce` is null where the platform has no WebCrypto (Hermes): hash it there
     * (CryptoKit's SHA256, Java's MessageDigest).
     */
    async socialNonce() {
      const answer = await dataOf(api.POST('/auth/social/nonce'));
      return { ...answer, hashedNonce: await sha256Hex(answer.nonce) };
    },
    /**
     * Signs in with what Sign in with Apple gave the app (ASAuthorizationAppleIDCredential, or
     * Sign in with Apple JS): `{identityToken, authorizationCode, nonce, fullName?}`, as text; send
     * `fullName` when Apple gives it (the first authorization only). Answers as verifyCode does,
     * with `isNewUser`.
     */
    signInWithApple: (body: Body<'/auth/apple'>) => signIn(() => dataOf(api.POST('/auth/apple', { body: named(body) }))),
    /** Signs in with Google's ID token (Credential Manager, Google Identity Services): `{idToken, nonce}`. */
    signInWithGoogle: (body: Body<'/auth/google'>) => signIn(() => dataOf(api.POST('/auth/google', { body: named(body) }))),
    /** Signs in with the code of WeChat's SendAuth response: `{code, appId?}` (`appId`: which of the service's WeChat apps). */
    signInWithWeChat: (body: Body<'/auth/wechat'>) => signIn(() => dataOf(api.POST('/auth/wechat', { body: named(body) }))),
    /** The signed-in person's passkeys: add, list, rename, remove. */
    passkeys: passkeysArea(context),
    /** Creates a password account with a code: `{email | phone, verifyCode, password}`; then log in. */
    register: (body: Body<'/auth/register'>) => dataOf(api.POST('/auth/register', { body })),
    /** True while a session is stored (it may still be ended by the service). */
    isSignedIn: async () => (await session.stored()) !== undefined,
    /**
     * Sends the queued events and the records outbox, ends the session on the service (with its refresh token), and
     * forgets it here even when the service cannot be reached.
     */
    async logout(): Promise<void> {
      stopAutoRefresh();
      const current = await session.stored();
      if (current) {
        await context.events?.flush().catch(() => undefined);
        await context.records?.push();
        await api.POST('/auth/logout', { body: { refreshToken: current.refreshToken } }).catch(() => undefined);
      }
      await session.forget();
    },
    /**
     * Refreshes now if due, then keeps refreshing before expiry while the app is in front. Call it
     * when the app becomes active (React Native AppState, the page's visibilitychange): a timer
     * does not fire while the phone sleeps, so this check is what counts.
     */
    startAutoRefresh(): Promise<void> {
      running = true;
      return check();
    },
    /** Stops the timer (the app went to the background). */
    stopAutoRefresh,
  };
}

export type Auth = ReturnType<typeof authArea>;
