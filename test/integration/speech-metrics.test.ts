import { describe, expect, it } from 'vitest';
import type { LocalApi } from '../support/local-api';
import type { ProviderStandIns } from '../../infra/local/provider-stand-ins';
import { newAccount } from '../support/resources';
import { startBody, useSpeechApi } from '../support/speech';

/**
 * Issue 44's metrics per provider, as the dashboard and the alarms read them (infra/constructs/
 * dashboard.ts, business-alarms.ts; tested in test/infra/operations.test.ts): sessions started,
 * seconds charged, provider failures and quota refusals, each counted once per event with its
 * provider. Read through the local server's metrics summary (the counts the functions emit as EMF
 * on AWS). Refused keys are counted in test/integration/speech-start.test.ts.
 */
let api: LocalApi;
let standIns: ProviderStandIns;
useSpeechApi((servers) => ({ api, standIns } = servers), { SPEECH_DAILY_SECONDS: '30', SPEECH_HEARTBEAT_SECONDS: '10' });

const key = (name: string, dimensions: Record<string, string>) => [name, ...Object.entries(dimensions).map(([k, v]) => `${k}=${v}`)].join(' ');
const totals = () => new Map(api.metrics.summary().map((total) => [key(total.name, total.dimensions), total.value]));

/** The speech metrics `action` added. */
async function counted(action: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = totals();
  await action();
  const added: Record<string, number> = {};
  for (const [name, value] of totals()) {
    if (!name.startsWith('Speech')) continue;
    if (value !== (before.get(name) ?? 0)) added[name] = value - (before.get(name) ?? 0);
  }
  return added;
}

describe('speech metrics per provider', () => {
  it('count a session started, the seconds each renewal and the end charge, a quota refusal, a provider failure', async () => {
    const owner = await newAccount(api, 'speech-metrics');
    // The service's clock stands still but where moved: charges are exact seconds.
    api.clock.freeze(new Date(Math.ceil(Date.now() / 1000) * 1000 + 60_000));
    let sessionId = '';
    expect(
      await counted(async () => {
        const started = await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'deepgram' }) });
        expect(started.status).toBe(201);
        sessionId = started.body.sessionId;
      }),
    ).toEqual({ 'SpeechSessionsStarted provider=deepgram': 1 });
    api.clock.advance(10);
    expect(await counted(() => api.request('POST', `/api/speech/sessions/${sessionId}/renew`, { token: owner.token, body: { elapsedSeconds: 10 } }))).toEqual({
      'SpeechSecondsCharged provider=deepgram': 10,
    });
    api.clock.advance(9);
    // The service's clock saw 19 s: the end charges 9, not the 25 reported.
    expect(await counted(() => api.request('POST', `/api/speech/sessions/${sessionId}/end`, { token: owner.token, body: { elapsedSeconds: 25 } }))).toEqual({
      'SpeechSecondsCharged provider=deepgram': 9,
    });
    // Another provider's session reaches the day's 30 s: its renewal charges what is left and is refused.
    const second = (await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'tencent' }) })).body.sessionId as string;
    api.clock.advance(15);
    expect(
      await counted(async () => {
        expect((await api.request('POST', `/api/speech/sessions/${second}/renew`, { token: owner.token, body: { elapsedSeconds: 15 } })).body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
      }),
    ).toEqual({ 'SpeechSecondsCharged provider=tencent': 11, 'SpeechQuotaRefusals provider=tencent': 1 });
    expect(
      await counted(async () => {
        expect((await api.request('POST', '/api/speech/sessions', { token: owner.token, body: startBody({ provider: 'aws' }) })).body.error).toBe('SPEECH_QUOTA_EXHAUSTED');
      }),
    ).toEqual({ 'SpeechQuotaRefusals provider=aws': 1 });

    const other = await newAccount(api, 'speech-metrics-failure');
    standIns.speech.mode = 'fail';
    try {
      expect(
        await counted(async () => {
          expect((await api.request('POST', '/api/speech/sessions', { token: other.token, body: startBody({ provider: 'azure' }) })).status).toBe(503);
        }),
      ).toEqual({ 'SpeechProviderFailures provider=azure': 1 });
    } finally {
      standIns.speech.mode = 'ok';
      api.clock.reset();
    }
  });
});
