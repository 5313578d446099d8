import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig } from '../../shared/config';
import { systemClock } from '../../shared/ports/clock';
import { ensureTable } from './create-table';
import { DevMetrics } from './dev-metrics';
import { DevOutbox } from './dev-outbox';
import { freePort, superviseDynamoDbLocal } from './dynamodb-local';
import { startLocalServer } from './server';
import { WATCHED_DIRECTORIES, superviseApi } from './api-supervisor';
import { LOCAL_ACCOUNT, buildDeployment, deploymentContext, startDeployedFunctions } from './deployed';
import type { DeployedFunctions } from './deployed';
import type { Deployment } from './deployed-functions';
import { DEFAULT_LOCAL_ADMIN_CREDENTIALS } from './sigv4-check';
import { startProviderStandIns } from './provider-stand-ins';
import { localProviderSecrets } from '../../shared/ports/provider-secrets';
import { LAMBDA_NODE_MAJOR } from './lambda-node.mjs';
import { localSpeechKeys } from '../../shared/ports/speech';
import { localPushKeys } from '../../shared/ports/push';
import { startPushStandIns } from './push-stand-ins';

/**
 * `npm start`, and `npm run start:deployed` (`npm start -- --deployed`): the deployed bundles, built
 * as `cdk synth` builds them and run on the Lambda runtime's Node, behind the same gateway
 * (infra/local/deployed.ts). `npm start`: DynamoDB Local (in memory, or on disk under DATA_DIR), the table, and every route
 * on http://localhost:8080 (PORT overrides), reloaded when a source changes (api-supervisor.ts; `--no-watch` or
 * LOCAL_WATCH=false: one fixed process). Ctrl-C stops both. DynamoDB Local is restarted when
 * it dies; if it keeps dying, or cannot come back, the whole process exits with the reason.
 */
const port = Number(process.env.PORT ?? 8080);
/** The credentials the local `/admin` routes take (local mode only; the stack never reads them). */
const adminCredentials = {
  accessKeyId: process.env.LOCAL_ADMIN_ACCESS_KEY_ID ?? DEFAULT_LOCAL_ADMIN_CREDENTIALS.accessKeyId,
  secretAccessKey: process.env.LOCAL_ADMIN_SECRET_ACCESS_KEY ?? DEFAULT_LOCAL_ADMIN_CREDENTIALS.secretAccessKey,
};
const deployed = process.argv.includes('--deployed');
const dataDir = process.env.DATA_DIR ? resolve(process.env.DATA_DIR) : undefined;
/** Reload the API when a source changes (infra/local/api-supervisor.ts), unless `--no-watch` or LOCAL_WATCH=false (fault tests want one fixed process). */
const watching = !process.argv.includes('--no-watch') && process.env.LOCAL_WATCH !== 'false';

/** JWT_SECRET if set; otherwise a random dev secret, kept in DATA_DIR so tokens survive restarts. */
function localRootSecret(): string {
  if (process.env.JWT_SECRET) return process.env.JWT_SECRET;
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'dev-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function main() {
  // Development machines may run Node 20 (Lambda runs 22+); the SDK's reminder is noise locally.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // The port is fixed up front: a restarted DynamoDB Local must answer where the server looks.
  const dynamoPort = await freePort();
  // Stand-ins for Apple, Google and WeChat (infra/local/provider-stand-ins.ts): the local server
  // trusts them unless the environment names the real providers and their ids.
  const local = { apple: 'local.captioning.app', google: 'local-captioning.apps.googleusercontent.com', wechatApp: 'wx00000000local01', wechatSecret: randomBytes(16).toString('hex') };
  const standIns = await startProviderStandIns({
    port: Number(process.env.STAND_INS_PORT ?? 0),
    appleClientId: local.apple,
    googleClientId: local.google,
    wechatApps: { [local.wechatApp]: local.wechatSecret },
  });
  const push = await startPushStandIns({ host: '127.0.0.1' });
  const providerDefaults = {
    APPLE_CLIENT_IDS: local.apple,
    APPLE_TEAM_ID: standIns.apple.teamId,
    APPLE_KEY_ID: standIns.apple.keyId,
    APPLE_API_URL: standIns.appleUrl,
    GOOGLE_CLIENT_IDS: local.google,
    GOOGLE_JWKS_URL: standIns.googleJwksUrl,
    WECHAT_APP_IDS: local.wechatApp,
    WECHAT_API_URL: standIns.wechatUrl,
    // Speech (docs/speech.md): Azure's token endpoint and Deepgram's grant are the stand-ins; Amazon
    // Transcribe's and Tencent's addresses are signed here (Transcribe with the environment's AWS
    // credentials, Tencent with a local key pair unless the environment names real ones).
    SPEECH_PROVIDERS: 'azure,deepgram,aws,tencent',
    AZURE_SPEECH_STS_URL: standIns.azureStsUrl,
    DEEPGRAM_API_URL: standIns.deepgramUrl,
    TENCENT_ASR_APP_ID: '1250000000',
    // The silent push (docs/realtime.md#the-silent-push): APNs and FCM stand-ins with a dev key
    // pair made at this start, unless the environment names other addresses (and its keys).
    APNS_URL: push.apnsUrl,
    APNS_TEAM_ID: push.apns.teamId,
    APNS_KEY_ID: push.apns.keyId,
    APNS_TOPIC: push.apns.topic,
    FCM_URL: push.fcmUrl,
    FCM_TOKEN_URL: push.fcmTokenUrl,
  };
  const settings = {
    TABLE_NAME: 'captioning-local',
    CORS_ORIGINS: '*',
    // Passkeys made on a page served from this server's own port (PORT=18080 npm start).
    WEBAUTHN_ORIGINS: `http://localhost:${port}`,
    ...providerDefaults,
    ...process.env,
  };
  const apiSettings = { ...settings, DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`, AWS_REGION: 'us-east-1' };
  const config = parseConfig(apiSettings);
  const outbox = new DevOutbox(systemClock, true);
  const metrics = new DevMetrics();
  const rootSecret = localRootSecret();
  const providerSecrets = {
    applePrivateKey: standIns.apple.privateKeyPem,
    wechatAppSecrets: { [local.wechatApp]: local.wechatSecret },
    ...localProviderSecrets(process.env),
  };
  // The speech providers' keys: the stand-ins' for Azure and Deepgram, a local pair for Tencent, unless the environment names real ones.
  const speechKeys = {
    azureSpeechKey: standIns.speech.azureKey,
    deepgramApiKey: standIns.speech.deepgramKey,
    tencentSecretId: `AKIDlocal${randomBytes(8).toString('hex')}`,
    tencentSecretKey: randomBytes(16).toString('hex'),
    ...localSpeechKeys(process.env),
  };
  // The stand-ins' dev keys, unless the environment names real ones (with their addresses).
  const pushKeys = {
    apnsPrivateKey: push.apns.privateKeyPem,
    fcmServiceAccount: push.fcm.serviceAccount,
    ...localPushKeys(process.env),
  };
  let server: { url: string; close(): Promise<void> } | undefined;
  const dynamo = await superviseDynamoDbLocal(
    { port: dynamoPort, ...(dataDir ? { dataDir } : {}), afterStart: (endpoint) => ensureTable(endpoint, config.TABLE_NAME) },
    {
      restarted: (restarts) =>
        console.error(`DynamoDB Local died and was restarted (${restarts} so far); ${dataDir ? `data in ${dataDir} kept` : 'in memory: its data is gone'}.`),
      gaveUp: (reason) => {
        console.error(`${reason}\nStopping: the API cannot serve without its table. Check Java 17+ and free memory, then npm start again.`);
        const closing = server ? server.close() : Promise.resolve();
        void closing.finally(() => process.exit(1));
      },
    },
  );
  let bundles: Deployment | undefined;
  let functions: DeployedFunctions | undefined;
  const stop = async () => {
    await server?.close();
    await functions?.close();
    bundles?.remove();
    await standIns.close();
    await push.close();
    await dynamo.stop();
  };
  try {
    if (deployed) {
      const resources = { region: config.AWS_REGION, account: LOCAL_ACCOUNT, tableName: config.TABLE_NAME };
      console.log('Building the functions as cdk synth does (infra/app.ts, cdk.json and these settings as context)...');
      bundles = buildDeployment(deploymentContext(settings), resources);
      functions = await startDeployedFunctions({ bundles, local: resources, dynamodbEndpoint: dynamo.endpoint, rootSecret, providerSecrets, speechKeys, pushKeys, outbox, metrics, output: 'inherit' });
      console.log(`${functions.functions.size} functions from ${bundles.directory}, on Node ${LAMBDA_NODE_MAJOR} (the Lambda runtime's)`);
    }
    const host = process.env.HOST ?? '127.0.0.1';
    // The sources' API reloads in a process of its own (api-supervisor.ts); the deployed bundles do not change under it.
    server = watching && !deployed
      ? await superviseApi({ settings: apiSettings, rootSecret, providerSecrets, speechKeys, pushKeys, adminCredentials, port, host })
      : await startLocalServer({
          config,
          clock: systemClock,
          rootSecret,
          outbox,
          providerSecrets,
          speechKeys,
          pushKeys,
          metrics,
          ...(functions ? { functions } : {}),
          port,
          host,
          adminCredentials,
        });
  } catch (error) {
    await stop();
    throw error;
  }
  console.log(`API listening on ${server.url} (DynamoDB Local at ${dynamo.endpoint}, ${dataDir ? `data in ${dataDir}` : 'in memory'})`);
  console.log(`API reference: ${server.url}/docs  (demo data: npm run seed)`);
  console.log(`Codes go to the dev outbox: ${server.url}/dev/outbox?target=<e-mail or phone>`);
  // Local mode only: the admin API's SigV4 credentials (the support CLI uses them: npm run admin).
  console.log(
    `Admin API (/admin, SigV4 for execute-api in ${config.AWS_REGION}): LOCAL_ADMIN_ACCESS_KEY_ID=${adminCredentials.accessKeyId} LOCAL_ADMIN_SECRET_ACCESS_KEY=${adminCredentials.secretAccessKey}  (npm run admin -- find --email ...)`,
  );
  console.log(`Apple, Google and WeChat stand-ins: ${standIns.url}/ (issue a token or code for a subject and e-mail you choose)`);
  console.log(`Speech: Azure's token endpoint and Deepgram's grant are stand-ins at ${standIns.url}; SPEECH_PROVIDERS=${config.SPEECH_PROVIDERS.join(',')} (docs/speech.md)`);
  console.log(`Silent push: APNs stand-in at ${config.APNS_URL}, FCM at ${config.FCM_URL} (docs/realtime.md#the-silent-push)`);
  if (!deployed) {
    console.log(
      watching
        ? `Reloads the API when ${WATCHED_DIRECTORIES.join('/, ')}/ change (DynamoDB Local, its data, the outbox and the stand-ins stay); npm start -- --no-watch for one fixed process`
        : 'Not watching the sources (--no-watch or LOCAL_WATCH=false): start again after a change',
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the API and DynamoDB Local...`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
