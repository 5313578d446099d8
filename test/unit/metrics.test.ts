import { afterEach, describe, expect, it, vi } from 'vitest';
import { powertoolsMetricSink } from '../../shared/adapters/powertools-metrics';
import { InvocationMetrics, METRIC_NAMESPACE } from '../../shared/ports/metrics';

afterEach(() => vi.restoreAllMocks());

describe('InvocationMetrics', () => {
  it('sums per metric and dimension value, and hands each count out once', () => {
    const metrics = new InvocationMetrics();
    metrics.count('CodesSent', 'sms');
    metrics.count('CodesSent', 'sms');
    metrics.count('CodesSent', 'email');
    metrics.count('AccountsCreated');
    expect(metrics.drain()).toEqual([
      { name: 'CodesSent', dimensions: { channel: 'sms' }, value: 2 },
      { name: 'CodesSent', dimensions: { channel: 'email' }, value: 1 },
      { name: 'AccountsCreated', dimensions: {}, value: 1 },
    ]);
    expect(metrics.drain()).toEqual([]);
  });
});

describe('the Powertools EMF sink', () => {
  const captured = () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    return () => lines.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  };

  it('writes one EMF line for the undimensioned counts and one per dimensioned count, in the namespace, by service', () => {
    const read = captured();
    powertoolsMetricSink('captioning-test').publish([
      { name: 'AccountsCreated', dimensions: {}, value: 1 },
      { name: 'RecordsSaved', dimensions: {}, value: 3 },
      { name: 'CodesSent', dimensions: { channel: 'sms' }, value: 2 },
    ]);
    const lines = read();
    vi.restoreAllMocks();
    expect(lines).toHaveLength(2);
    const dimensioned = lines.find((line) => 'CodesSent' in line);
    expect(dimensioned).toMatchObject({ service: 'captioning-test', channel: 'sms', CodesSent: 2 });
    expect(dimensioned._aws.CloudWatchMetrics).toEqual([
      { Namespace: METRIC_NAMESPACE, Dimensions: [['service', 'channel']], Metrics: [{ Name: 'CodesSent', Unit: 'Count' }] },
    ]);
    const plain = lines.find((line) => 'AccountsCreated' in line);
    expect(plain).toMatchObject({ service: 'captioning-test', AccountsCreated: 1, RecordsSaved: 3 });
    expect(plain._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: METRIC_NAMESPACE, Dimensions: [['service']] });
  });

  it('writes nothing when nothing was counted', () => {
    const read = captured();
    powertoolsMetricSink('captioning-test').publish([]);
    const lines = read();
    vi.restoreAllMocks();
    expect(lines).toEqual([]);
  });
});
