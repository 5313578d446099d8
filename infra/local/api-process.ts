import { parseConfig } from '../../shared/config';
import { systemClock } from '../../shared/ports/clock';
import type { ProviderSecrets } from '../../shared/ports/provider-secrets';
import type { SpeechKeys } from '../../shared/ports/speech';
import type { PushKeys } from '../../shared/ports/push';
import { DevOutbox } from './dev-outbox';
import type { OutboxEntry } from './dev-outbox';
import { startLocalServer } from './server';
import type { LocalAdminCredentials } from './sigv4-check';

/**
 * The API process of `npm start` in watch mode (infra/local/api-supervisor.ts forks it and forks
 * a new one when a source changes): the local server alone, with everything that must outlive a
 * reload handed in over the IPC channel, never through the environment: the settings, the root
 * secret, the providers' secrets and the dev outbox's messages so far. DynamoDB Local and the
 * provider stand-ins stay in the supervising process.
 */
export interface ApiProcessStart {
  type: 'start';
  /** The settings' input (parseConfig's), as `npm start` composed it. */
  settings: Record<string, string | undefined>;
  rootSecret: string;
  providerSecrets: ProviderSecrets;
  /** The speech providers' keys (shared/ports/speech.ts). */
  speechKeys?: SpeechKeys;
  /** The silent push's keys (shared/ports/push.ts). */
  pushKeys?: PushKeys;
  adminCredentials: LocalAdminCredentials;
  port: number;
  host: string;
  outbox: OutboxEntry[];
}

export type ApiProcessMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string } | { type: 'outbox'; entry: OutboxEntry };

const tell = (message: ApiProcessMessage) => process.send?.(message);

process.once('message', (message: ApiProcessStart) => {
  void (async () => {
    const server = await startLocalServer({
      config: parseConfig(message.settings),
      clock: systemClock,
      rootSecret: message.rootSecret,
      outbox: new DevOutbox(systemClock, true, message.outbox, (entry) => tell({ type: 'outbox', entry })),
      providerSecrets: message.providerSecrets,
      ...(message.speechKeys ? { speechKeys: message.speechKeys } : {}),
      ...(message.pushKeys ? { pushKeys: message.pushKeys } : {}),
      port: message.port,
      host: message.host,
      adminCredentials: message.adminCredentials,
    });
    const stop = () => void server.close().finally(() => process.exit(0));
    process.once('SIGTERM', stop);
    // The supervisor gone (killed, crashed): nothing is left to serve for.
    process.once('disconnect', stop);
    tell({ type: 'ready', url: server.url });
  })().catch((error: unknown) => {
    tell({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  });
});
