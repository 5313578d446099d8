import { describe, expect, it } from 'vitest';
import { synthesizeDeployment } from '../../infra/local/deployed-functions';
import { deploymentContext } from '../../infra/local/deployed';
import { routeId, routes } from '../../shared/routes';

/**
 * `npm run start:deployed` (infra/local/deployed.ts) and the speech functions (issue 44): the app
 * synthesized as `cdk synth` does with the local settings as context, without bundling. The whole
 * path, bundles included, runs in test/integration/openapi-conformance-deployed.test.ts.
 */
const local = { region: 'us-east-1', account: '000000000000', tableName: 'captioning-local' };

describe("the speech functions' settings and keys under start:deployed", () => {
  it('the providers\' addresses reach the speech functions through their templates, the keys only the speech secret', () => {
    const keys = { AZURE_SPEECH_KEY: 'azure-key-never-in-env', DEEPGRAM_API_KEY: 'deepgram-key-never-in-env', TENCENT_SECRET_KEY: 'tencent-key-never-in-env' };
    const deployment = synthesizeDeployment({
      context: deploymentContext({
        SPEECH_PROVIDERS: 'azure,deepgram,tencent',
        AZURE_SPEECH_STS_URL: 'http://127.0.0.1:4010/sts/v1.0/issueToken',
        DEEPGRAM_API_URL: 'http://127.0.0.1:4010/deepgram',
        TENCENT_ASR_APP_ID: '1250000000',
        ...keys,
      }),
      local,
      bundle: false,
    });
    try {
      expect(deployment.secrets.speech).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:SpeechSecret[\w]*-local$/);
      const issuers = routes.filter((route) => route.speech).map(routeId);
      expect(issuers.length).toBeGreaterThan(0);
      for (const id of issuers) {
        expect(deployment.functions.get(id)!.environment, id).toMatchObject({
          SPEECH_PROVIDERS: 'azure,deepgram,tencent',
          AZURE_SPEECH_STS_URL: 'http://127.0.0.1:4010/sts/v1.0/issueToken',
          DEEPGRAM_API_URL: 'http://127.0.0.1:4010/deepgram',
          TENCENT_ASR_APP_ID: '1250000000',
          SPEECH_SECRET_ARN: deployment.secrets.speech,
        });
      }
      // Only the functions that issue credentials get the addresses and the secret; no function gets a key.
      expect(deployment.functions.get('GET /api/speech/quota')!.environment).not.toHaveProperty('AZURE_SPEECH_STS_URL');
      expect(deployment.functions.get('GET /api/health')!.environment).not.toHaveProperty('SPEECH_SECRET_ARN');
      const environments = JSON.stringify([...deployment.functions.values()].map((fn) => fn.environment));
      for (const key of Object.values(keys)) expect(environments).not.toContain(key);
    } finally {
      deployment.remove();
    }
  }, 120_000);
});
