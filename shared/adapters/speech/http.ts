import type { SpeechProviderName } from '../../config';
import { SpeechProviderFailure } from '../../ports/speech';

/**
 * One call to a provider's token endpoint, bounded by SPEECH_PROVIDER_TIMEOUT_MS: the answer, or a
 * SpeechProviderFailure saying why (a timeout, no connection, a 5xx, the key refused with 401/403,
 * anything else malformed). The request's key header is the caller's; nothing here logs it, and
 * the failure carries the status only, never the request.
 */
export async function callProvider(provider: SpeechProviderName, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new SpeechProviderFailure(provider, timedOut ? 'timeout' : 'unreachable', { cause: error instanceof Error ? error.name : undefined });
  }
  if (response.ok) return response;
  await response.body?.cancel();
  if (response.status === 401 || response.status === 403) throw new SpeechProviderFailure(provider, 'key-refused', { cause: `HTTP ${response.status}` });
  if (response.status >= 500 || response.status === 429) throw new SpeechProviderFailure(provider, 'server-error', { cause: `HTTP ${response.status}` });
  throw new SpeechProviderFailure(provider, 'malformed', { cause: `HTTP ${response.status}` });
}

/** The answer's body within the same bound: a provider that stalls mid-answer times out too. */
export async function readBody<T>(provider: SpeechProviderName, response: Response, read: (response: Response) => Promise<T>): Promise<T> {
  try {
    return await read(response);
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new SpeechProviderFailure(provider, timedOut ? 'timeout' : 'malformed', { cause: error instanceof Error ? error.name : undefined });
  }
}
