import type { Config } from '../../config';
import type { PushKeys, PushSender } from '../../ports/push';
import { apnsClient } from './apns';
import { fcmClient } from './fcm';

/**
 * The silent push's sender (shared/ports/push.ts): APNs for `apns` tokens, FCM for `fcm` ones,
 * given the keys' reader (the provider secret on AWS, the environment locally). A provider that
 * throws (unreachable, timed out, a key it cannot sign with) is a `failed` push, never an error of
 * the fan-out. `reasons` hears what a provider said of a push it did not take (logs, tests).
 */
export function pushSender(cfg: Config, keys: () => Promise<PushKeys>, reasons: (platform: string, reason: string) => void = () => undefined): PushSender {
  const apns = apnsClient(cfg, async () => (await keys()).apnsPrivateKey);
  const fcm = fcmClient(cfg, async () => (await keys()).fcmServiceAccount);
  return {
    offers: async (platform) => (platform === 'apns' ? apns.configured() : fcm.configured()).catch(() => false),
    async send(target) {
      try {
        const { outcome, reason } = await (target.platform === 'apns' ? apns.send(target) : fcm.send(target));
        if (reason && outcome !== 'sent') reasons(target.platform, reason);
        return outcome;
      } catch (error) {
        reasons(target.platform, (error as Error).message);
        return 'failed';
      }
    },
  };
}
