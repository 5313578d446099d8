import type { ClientContext } from './context';
import type { components, paths } from './generated/api';
import { dataOf } from './transport';

export type Passkey = components['schemas']['Passkey'];
/** What the service gives for `navigator.credentials.create` / a passkey module's create. */
export type PasskeyCreationOptions = components['schemas']['PasskeyCreationOptions'];
/** What the service gives for `navigator.credentials.get` / a passkey module's get. */
export type PasskeyRequestOptions = components['schemas']['PasskeyRequestOptions'];

type Json<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;
/**
 * A platform's credential as JSON, as `PublicKeyCredential.toJSON()` gives it or a React Native
 * passkey module returns it. `type` may be left out (some modules do): it is always `public-key`.
 */
type CredentialJson<T> = Omit<T, 'type' | 'authenticatorAttachment'> & { type?: string; authenticatorAttachment?: string };
type SentRegistration = Json<'/auth/passkeys'>['response'];
export type SentAssertion = Json<'/auth/passkey/verify'>['response'];
export type PasskeyRegistration = CredentialJson<SentRegistration>;
export type PasskeyAssertion = CredentialJson<SentAssertion>;

/**
 * The platform's own passkey call, which the app passes in so that the client holds no platform
 * code: on the web `navigator.credentials.create` / `get` with the JSON helpers of
 * PublicKeyCredential, in React Native a passkey module. It takes the options the service gave
 * and answers the credential JSON; it may throw (the person cancelled), and that error reaches
 * the caller as it is.
 */
export type PasskeyCeremony<Options, Credential> = (options: Options) => Credential | Promise<Credential>;
export type CreatePasskey = PasskeyCeremony<PasskeyCreationOptions, PasskeyRegistration>;
export type GetPasskey = PasskeyCeremony<PasskeyRequestOptions, PasskeyAssertion>;

/** The credential as sent: the platform's JSON with its type; the service checks every field. */
export const credentialBody = <T>(credential: { type?: string }) => ({ ...credential, type: credential.type ?? 'public-key' }) as unknown as T;

/** The signed-in person's passkeys (`/api/auth/passkeys`). */
export function passkeysArea({ api }: ClientContext) {
  return {
    /**
     * Adds a passkey: asks the service for options, runs the platform's ceremony with them, and
     * has the service verify and store what it made. Resolves to the passkey as listed.
     */
    async add(create: CreatePasskey, { name }: { name?: string } = {}): Promise<Passkey> {
      const options = await dataOf(api.POST('/auth/passkeys/registration-options'));
      const response = credentialBody<SentRegistration>(await create(options));
      return dataOf(api.POST('/auth/passkeys', { body: name === undefined ? { response } : { response, name } }));
    },
    /** The account's passkeys, oldest first (at most 10). */
    list: (): Promise<Passkey[]> => dataOf(api.GET('/auth/passkeys')),
    rename: (passkeyId: string, name: string): Promise<Passkey> => dataOf(api.PATCH('/auth/passkeys/{passkeyId}', { params: { path: { passkeyId } }, body: { name } })),
    /** It signs in no more at once; the copy on the person's devices stays until they delete it there. */
    async remove(passkeyId: string): Promise<void> {
      await dataOf(api.DELETE('/auth/passkeys/{passkeyId}', { params: { path: { passkeyId } } }));
    },
  };
}

export type Passkeys = ReturnType<typeof passkeysArea>;
