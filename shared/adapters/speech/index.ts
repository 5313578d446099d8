import type { Config } from '../../config';
import type { SpeechKeys, SpeechProviders } from '../../ports/speech';
import { azureCredential } from './azure';
import { deepgramCredential } from './deepgram';
import { transcribeCredential } from './aws-transcribe';
import { tencentCredential } from './tencent';

/**
 * The speech providers' adapters (shared/ports/speech.ts) for one function: the keys are read when
 * a credential is first needed (the speech secret on AWS, cached by the secret source).
 */
export function speechProviders(cfg: Config, keys: () => Promise<SpeechKeys>): SpeechProviders {
  return {
    async issue(provider, request) {
      switch (provider) {
        case 'azure':
          return azureCredential(cfg, await keys(), request);
        case 'deepgram':
          return deepgramCredential(cfg, await keys(), request);
        case 'aws':
          return transcribeCredential(cfg, request);
        case 'tencent':
          return tencentCredential(cfg, await keys(), request);
      }
    },
  };
}
