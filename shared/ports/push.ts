import type { PushTarget } from '../db/push-repository';

/**
 * The silent push's keys (docs/realtime.md#the-silent-push): APNs' signing key (the team's `.p8`,
 * PEM, PKCS #8) and the FCM service account (its JSON: `project_id`, `client_email`,
 * `private_key`). On AWS they are the push secret, a secret of their own (`PUSH_SECRET_ARN`:
 * `{"apnsPrivateKey": "...", "fcmServiceAccount": {...}}`), read only by the fan-out; locally
 * `APNS_PRIVATE_KEY` and `FCM_SERVICE_ACCOUNT`. Never settings: out of `Config` and its logs.
 */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

export interface PushKeys {
  apnsPrivateKey?: string;
  fcmServiceAccount?: FcmServiceAccount;
}

/** What a provider said of one push: accepted, the token is dead (remove it), or anything else (nothing retried). */
export type PushOutcome = 'sent' | 'dead' | 'failed';

/** Sends one silent push to one app; never throws (a provider's failure is `failed`). */
export interface PushSender {
  /** Whether this deployment can push to the platform (its settings and key are there); a platform it cannot is skipped. */
  offers(platform: PushTarget['platform']): Promise<boolean>;
  send(target: PushTarget): Promise<PushOutcome>;
}

const isServiceAccount = (value: unknown): value is FcmServiceAccount => {
  const account = value as Record<string, unknown> | null;
  return typeof account === 'object' && account !== null && typeof account.project_id === 'string' && typeof account.client_email === 'string' && typeof account.private_key === 'string';
};

/** The service account from its JSON text or object; a malformed one is a deployment fault. */
export function serviceAccountOf(value: unknown): FcmServiceAccount {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!isServiceAccount(parsed)) throw new Error('FCM_SERVICE_ACCOUNT must be the service account\'s JSON with project_id, client_email and private_key');
  return parsed;
}

/** The push keys of the push secret's JSON (other fields, such as the stack's `placeholder`, are ignored). */
export function pushKeysOf(json: string): PushKeys {
  const parsed = JSON.parse(json) as { apnsPrivateKey?: unknown; fcmServiceAccount?: unknown };
  return {
    ...(typeof parsed.apnsPrivateKey === 'string' ? { apnsPrivateKey: parsed.apnsPrivateKey } : {}),
    ...(parsed.fcmServiceAccount !== undefined ? { fcmServiceAccount: serviceAccountOf(parsed.fcmServiceAccount) } : {}),
  };
}

/** Local mode: `APNS_PRIVATE_KEY` (PEM; `\n` may be written as the two characters) and `FCM_SERVICE_ACCOUNT` (JSON). */
export function localPushKeys(env: Record<string, string | undefined>): PushKeys {
  return {
    ...(env.APNS_PRIVATE_KEY ? { apnsPrivateKey: env.APNS_PRIVATE_KEY.replace(/\\n/g, '\n') } : {}),
    ...(env.FCM_SERVICE_ACCOUNT ? { fcmServiceAccount: serviceAccountOf(env.FCM_SERVICE_ACCOUNT) } : {}),
  };
}
