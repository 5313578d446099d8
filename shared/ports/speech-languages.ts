import type { SpeechProviderName } from '../config';

/**
 * Each speech provider's languages, one table (docs/speech.md lists it): the language as records
 * have it (`en-US`) -> the provider's own name for it in the streaming request. Azure and Amazon
 * Transcribe take the tag as it is; Deepgram's nova-3 its own codes; Tencent an engine model per
 * language and sample rate (`16k_zh`, `8k_en`).
 */
export const SPEECH_LANGUAGES: Readonly<Record<SpeechProviderName, Readonly<Record<string, string | Readonly<Record<8000 | 16000, string>>>>>> = {
  azure: {
    'en-US': 'en-US', 'en-GB': 'en-GB', 'en-AU': 'en-AU', 'en-IN': 'en-IN', 'zh-CN': 'zh-CN', 'zh-TW': 'zh-TW', 'zh-HK': 'zh-HK',
    'ja-JP': 'ja-JP', 'ko-KR': 'ko-KR', 'fr-FR': 'fr-FR', 'de-DE': 'de-DE', 'es-ES': 'es-ES', 'es-MX': 'es-MX', 'it-IT': 'it-IT',
    'pt-BR': 'pt-BR', 'ru-RU': 'ru-RU', 'ar-SA': 'ar-SA', 'hi-IN': 'hi-IN', 'nl-NL': 'nl-NL',
  },
  deepgram: {
    'en-US': 'en-US', 'en-GB': 'en-GB', 'en-AU': 'en-AU', 'en-IN': 'en-IN', 'es-ES': 'es', 'es-MX': 'es', 'fr-FR': 'fr', 'de-DE': 'de',
    'it-IT': 'it', 'pt-BR': 'pt-BR', 'ru-RU': 'ru', 'ja-JP': 'ja', 'hi-IN': 'hi', 'nl-NL': 'nl',
  },
  aws: {
    'en-US': 'en-US', 'en-GB': 'en-GB', 'en-AU': 'en-AU', 'en-IN': 'en-IN', 'zh-CN': 'zh-CN', 'ja-JP': 'ja-JP', 'ko-KR': 'ko-KR',
    'fr-FR': 'fr-FR', 'de-DE': 'de-DE', 'es-US': 'es-US', 'it-IT': 'it-IT', 'pt-BR': 'pt-BR', 'hi-IN': 'hi-IN',
  },
  tencent: {
    'zh-CN': { 16000: '16k_zh', 8000: '8k_zh' },
    'en-US': { 16000: '16k_en', 8000: '8k_en' },
  },
};

/** The provider's name for a language at a rate; undefined where it does not serve it. */
export function providerLanguage(provider: SpeechProviderName, language: string, sampleRate: number): string | undefined {
  const entry = Object.hasOwn(SPEECH_LANGUAGES[provider], language) ? SPEECH_LANGUAGES[provider][language] : undefined;
  if (entry === undefined || typeof entry === 'string') return entry;
  return entry[sampleRate as 8000 | 16000];
}
