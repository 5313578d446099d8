import { describe, expect, it } from 'vitest';
import { routeId, routes } from '../../shared/routes';
import { AUTHORIZER } from '../bench/bundles';
import { unitsOf } from '../bench/consumed-capacity';
import { readBudget, readPrices, readProfile, updatedBudget } from '../bench/cost-data';
import { accessLogBytes, platformLogBytes } from '../bench/cost-measure';
import type { AuthorizerMeasure, OperationMeasure } from '../bench/cost-measure';
import { customMetricSeries, inventoryOf } from '../bench/cost-deployment';
import type { DeploymentInventory } from '../bench/cost-deployment';
import { COST_VARIANTS, routeOfOperation } from '../bench/cost-drivers';
import { operationsToMeasure, pricedProfile, pricingSettings, readMeasurements } from '../bench/cost-measurements';
import { SPEECH_PROVIDER_NAMES } from '../../shared/config';
import { APP_OPEN_READS, LIVE_CHANNEL_WORK, REALTIME_TICKET, SPEECH_END, SPEECH_RENEW, SPEECH_START, agedSecretReads, derivedCalls, withDerivedCalls, callCost, costReport, fixedMonthlyUsd, messageCost, sampledShare, withPasskeyShare, withSeparateOpenReads, withSignInShares } from '../bench/cost-model';
import type { UsageProfile } from '../bench/cost-model';

/**
 * The cost model's data and arithmetic (npm run cost, test/bench/cost-*.ts). The measured side
 * runs in test/integration/capacity-budget.test.ts.
 */
const routeIds = routes.map(routeId);
/** What npm run cost measures and prices: every route, and the variants priced apart (a search page). */
const operationIds = [...routeIds, ...Object.keys(COST_VARIANTS)];

describe('cost model data', () => {
  // A route's driver and budget row: test/unit/route-coverage.test.ts, with every other place a route must appear.
  it('holds each variant priced apart and the authorizer to a capacity budget, and budgets nothing else', () => {
    const budgeted = readBudget().map((row) => row.operation);
    expect(budgeted.filter((operation) => !operationIds.includes(operation) && operation !== AUTHORIZER)).toEqual([]);
    expect([...Object.keys(COST_VARIANTS), AUTHORIZER].filter((operation) => !budgeted.includes(operation)), 'add a row to cost/capacity-budget.json').toEqual([]);
    expect(new Set(budgeted).size).toBe(budgeted.length);
  });

  it('writes the budget rows named and those missing, keeps the others in place, never lowers a hand-set row', () => {
    const row = (operation: string, units: number, handSet?: string) => ({ operation, maxReadUnits: units, maxWriteUnits: 0, maxDynamoRequests: 1, ...(handSet ? { handSet } : {}) });
    const rows = [row('A', 5), row('C', 300, 'a long history'), row('authorizer', 1)];
    const measured = [row('A', 2), row('B', 3), row('C', 14), row('authorizer', 1)];
    const order = ['A', 'B', 'C', 'authorizer'];
    // Nothing named: only the missing row, in its place.
    expect(updatedBudget(rows, measured, [], order)).toEqual([row('A', 5), row('B', 3), row('C', 300, 'a long history'), row('authorizer', 1)]);
    // Named: rewritten, lower too, except the hand-set row, which only rises.
    expect(updatedBudget(rows, measured, ['A', 'C'], order)).toEqual([row('A', 2), row('B', 3), row('C', 300, 'a long history'), row('authorizer', 1)]);
    expect(updatedBudget(rows, [row('C', 400)], ['C'], order)).toEqual([row('A', 5), row('C', 400, 'a long history'), row('authorizer', 1)]);
    expect(readBudget().find((budget) => budget.operation === 'GET /api/users/me/export')?.handSet).toMatch(/1 MB/);
  });

  it('measures again only the operations named, those whose function changed and those without a row', () => {
    const stored = readMeasurements()!;
    const fingerprints = new Map([...Object.entries(stored.operations).map(([id, row]) => [routeOfOperation(id), row.fingerprint] as const), [AUTHORIZER, stored.authorizer.fingerprint]]);
    expect(operationsToMeasure(stored, fingerprints, [], false)).toEqual([]);
    expect(operationsToMeasure(stored, fingerprints, ['GET /api/users/me'], false)).toEqual(['GET /api/users/me']);
    // A changed function: its route and the variants it serves.
    const changed = new Map(fingerprints).set('GET /api/transcriptions', 'changed');
    expect(operationsToMeasure(stored, changed, [], false)).toEqual(['GET /api/transcriptions', 'GET /api/transcriptions?q']);
    expect(operationsToMeasure(stored, changed, ['GET /api/users/me'], false, true)).toEqual(['GET /api/users/me']);
    const { ['GET /api/health']: _health, ...withoutHealth } = stored.operations;
    expect(operationsToMeasure({ ...stored, operations: withoutHealth }, fingerprints, [], false)).toEqual(['GET /api/health']);
    expect(operationsToMeasure(stored, fingerprints, [], true)).toHaveLength(operationIds.length + 1);
  });

  it('gives every price and anchor its source and the date it was read', () => {
    const prices = readPrices();
    for (const price of [...Object.values(prices.prices), ...Object.values(prices.speechPerHour), ...Object.values(prices.smsPerMessage), ...prices.anchors]) {
      expect(price.source).toMatch(/^https:\/\//);
      expect(price.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(prices.anchors.find((anchor) => anchor.name === 'Amazon Cognito Essentials')?.perThousandMauUsd).toBe(15);
  });

  it('prices every speech provider the service offers, and says why the profile captions as many hours as it does', () => {
    expect(Object.keys(readPrices().speechPerHour).sort()).toEqual([...SPEECH_PROVIDER_NAMES].sort());
    const captioning = readProfile().captioning!;
    expect(captioning.hoursPerUserPerMonth).toBeGreaterThan(0);
    expect(captioning.why).toMatch(/SPEECH_MONTHLY_SECONDS/);
    // Captioning happens with the app open: within the profile's app-open time.
    expect(captioning.hoursPerUserPerMonth).toBeLessThanOrEqual((readProfile().sessionsPerUserPerMonth * readProfile().minutesPerSession) / 60);
    // The tickets are derived from the app opens, as the renewals from the captioning hours: never listed.
    expect(readProfile().callsPerUserPerMonth[REALTIME_TICKET]).toBeUndefined();
    expect(pricedProfile(readProfile()).callsPerUserPerMonth[REALTIME_TICKET]).toBe(readProfile().sessionsPerUserPerMonth);
    expect(readProfile().liveChannel?.why).toMatch(/second open app/);
    // The renewals are derived, never listed beside the hours they follow from.
    for (const id of [SPEECH_START, SPEECH_RENEW, SPEECH_END]) expect(readProfile().callsPerUserPerMonth[id]).toBeUndefined();
    expect(pricedProfile(readProfile()).callsPerUserPerMonth[SPEECH_RENEW]).toBe(derivedCalls(readProfile(), pricingSettings())[SPEECH_RENEW]);
  });

  it('prices each variant with its own route, and names only operations it measures in the default profile', () => {
    for (const variant of Object.values(COST_VARIANTS)) expect(routeIds).toContain(variant.route);
    expect(Object.keys(readProfile().callsPerUserPerMonth).filter((id) => !operationIds.includes(id))).toEqual([]);
  });

  it('opens the app with the summary in the default profile, and searches a few times a month', () => {
    const calls = readProfile().callsPerUserPerMonth;
    expect(calls['GET /api/users/me/summary']).toBe(readProfile().sessionsPerUserPerMonth);
    expect(calls['GET /api/transcriptions?q']).toBeGreaterThan(0);
  });

  it('has a default profile whose SMS countries all have prices and whose channels add up to one', () => {
    const profile = readProfile();
    const prices = readPrices();
    expect(Object.keys(profile.codeChannels.sms).every((country) => prices.smsPerMessage[country])).toBe(true);
    const shares = profile.codeChannels.email + Object.values(profile.codeChannels.sms).reduce((sum, share) => sum + share, 0);
    expect(shares).toBeCloseTo(1, 9);
  });
});

describe('consumed capacity', () => {
  it('takes the read and write split when DynamoDB gives it, the command kind when it gives only a total', () => {
    expect(unitsOf('GetCommand', { CapacityUnits: 1 })).toEqual({ readUnits: 1, writeUnits: 0 });
    expect(unitsOf('QueryCommand', { CapacityUnits: 2.5 })).toEqual({ readUnits: 2.5, writeUnits: 0 });
    expect(unitsOf('UpdateCommand', { CapacityUnits: 1 })).toEqual({ readUnits: 0, writeUnits: 1 });
    expect(unitsOf('TransactWriteCommand', [{ CapacityUnits: 2 }, { CapacityUnits: 4 }])).toEqual({ readUnits: 0, writeUnits: 6 });
    expect(unitsOf('UpdateCommand', { CapacityUnits: 3, ReadCapacityUnits: 1, WriteCapacityUnits: 2 })).toEqual({ readUnits: 1, writeUnits: 2 });
    expect(unitsOf('GetCommand', undefined)).toEqual({ readUnits: 0, writeUnits: 0 });
  });
});

describe('cost model arithmetic', () => {
  const prices = readPrices();
  const profile: UsageProfile = {
    name: 'test',
    mau: 100_000,
    callsPerUserPerMonth: { 'GET /api/users/me': 100, 'POST /api/verify-code/send': 1, 'POST /api/not/yet': 50 },
    sessionsPerUserPerMonth: 10,
    minutesPerSession: 12,
    coldStartShare: 0,
    warmContainersPerFunction: 2,
    dataRetainedMonths: 0,
    codeChannels: { email: 1, sms: {} },
  };
  const measure = (operation: string, overrides: Partial<OperationMeasure> = {}) => ({
    operation,
    auth: 'bearer' as const,
    dynamoRequests: 1,
    readUnits: 1,
    writeUnits: 0,
    writeUnitsPerItemFloor: 0,
    commands: ['Get'],
    handlerMs: 9.2,
    memoryMb: 256,
    functionLogBytes: 0,
    accessLogBytes: 0,
    responseBytes: 0,
    storedBytes: 0,
    messages: { email: 0, sms: 0 },
    secretPerColdStart: false,
    initMs: 100,
    ...overrides,
  });
  const authorizer: AuthorizerMeasure & { initMs: number } = {
    dynamoRequests: 1,
    readUnits: 1,
    writeUnits: 0,
    handlerMs: 2.1,
    memoryMb: 512,
    functionLogBytes: 0,
    secretPerColdStart: true,
    initMs: 40,
  };

  const nothingMonthly: DeploymentInventory = { stage: 'test', webAcls: 0, wafRules: 0, alarms: 0, compositeAlarms: 0, dashboards: 0, secrets: 0, customMetrics: 0 };
  const settings = { authorizerCacheSeconds: 300, traceSampling: { reservoirPerSecond: 0, fixedRate: 0 }, keysMaxAgeSeconds: 300, speechHeartbeatSeconds: 60, liveChannelMemoryMb: 256, liveChannelLogBytesPerInvocation: 470 };

  it('prices a call: gateway, a request and billed milliseconds of Lambda, and its units', () => {
    const cost = callCost(measure('GET /api/users/me'), prices.prices, profile, 0);
    expect(cost.apiGateway * 1e6).toBeCloseTo(3.5, 9);
    // The web ACL sits on the stage: WAF inspects this request too.
    expect(cost.waf * 1e6).toBeCloseTo(0.6, 9);
    // 256 MB for 10 ms (9.2 rounded up) and one request.
    expect(cost.lambda).toBeCloseTo(0.2 / 1e6 + 0.25 * 0.01 * 0.0000133334, 15);
    expect(cost.dynamoDb * 1e6).toBeCloseTo(0.125, 9);
    expect(cost.coldStarts).toBe(0);
  });

  it('samples X-Ray traces as the default rule does: the reservoir each second, then the fixed rate', () => {
    expect(sampledShare(1, { reservoirPerSecond: 1, fixedRate: 0.05 })).toBe(1);
    expect(sampledShare(21, { reservoirPerSecond: 1, fixedRate: 0.05 })).toBeCloseTo(2 / 21, 12);
    expect(sampledShare(0, { reservoirPerSecond: 1, fixedRate: 0.05 })).toBe(0);
  });

  it('skips and reports profile entries that are not in the route table, and runs the authorizer once per cache window', () => {
    const report = costReport({
      operations: [measure('GET /api/users/me'), measure('POST /api/verify-code/send', { auth: 'none', messages: { email: 1, sms: 0 }, secretPerColdStart: true })],
      authorizer,
      prices,
      profile,
      settings,
      deployment: nothingMonthly,
    });
    expect(report.details.unknownOperations).toEqual(['POST /api/not/yet']);
    expect(report.details.requestsPerUserPerMonth).toBe(101);
    // 10 sessions of 12 minutes: 3 windows of 5 minutes each.
    expect(report.details.authorizerInvocationsPerUserPerMonth).toBe(30);
    expect(report.messagingPerThousandMauUsd).toBeCloseTo(1 * 0.0001 * 1000, 9);
    expect(report.operations.map((row) => row.operation)).toEqual(['GET /api/users/me', 'POST /api/verify-code/send']);
    const parts = Object.values(report.details.perThousandMauByComponent).reduce((sum, value) => sum + value, 0);
    expect(parts).toBeCloseTo(report.perThousandMauUsd, 3);
  });

  it('moves the passkey share of monthly sign-ins from codes to passkeys, and reports messaging and the total with and without', () => {
    const operations = [
      measure('POST /api/verify-code/send', { auth: 'none', messages: { email: 1, sms: 0 }, secretPerColdStart: true }),
      measure('POST /api/verify-code/verify', { auth: 'none', secretPerColdStart: true }),
      measure('POST /api/auth/passkey/options', { auth: 'none', dynamoRequests: 0, readUnits: 0, secretPerColdStart: true }),
      measure('POST /api/auth/passkey/verify', { auth: 'none', secretPerColdStart: true }),
    ];
    const signIns = { 'POST /api/verify-code/send': 2, 'POST /api/verify-code/verify': 2 };
    expect(withPasskeyShare({ ...profile, callsPerUserPerMonth: signIns }, 0.25).callsPerUserPerMonth).toEqual({
      'POST /api/verify-code/send': 1.5,
      'POST /api/verify-code/verify': 1.5,
      'POST /api/auth/passkey/options': 0.5,
      'POST /api/auth/passkey/verify': 0.5,
    });
    const report = costReport({ operations, authorizer, prices, profile: { ...profile, callsPerUserPerMonth: signIns, passkeySignInShare: 0.25 }, settings, deployment: nothingMonthly });
    const passkeys = report.details.passkeys!;
    expect(passkeys.signInShare).toBe(0.25);
    expect(passkeys.withoutPasskeys.messagingPerThousandMauUsd).toBeCloseTo(2 * 0.0001 * 1000, 9);
    expect(passkeys.withPasskeys.messagingPerThousandMauUsd).toBeCloseTo(1.5 * 0.0001 * 1000, 9);
    expect(passkeys.withPasskeys.messagingPerThousandMauUsd).toBe(report.messagingPerThousandMauUsd);
    expect(passkeys.withPasskeys.totalPerThousandMauUsd).toBeCloseTo(report.messagingPerThousandMauUsd + report.perThousandMauUsd, 3);
    expect(passkeys.withPasskeys.totalPerThousandMauUsd).toBeLessThan(passkeys.withoutPasskeys.totalPerThousandMauUsd);
    // Without a share in the profile, nothing moves.
    expect(costReport({ operations, authorizer, prices, profile: { ...profile, callsPerUserPerMonth: signIns }, settings, deployment: nothingMonthly }).details.passkeys!.withPasskeys)
      .toEqual(passkeys.withoutPasskeys);
  });

  it('moves the social share of sign-ins to the providers (Apple and Google after a nonce), beside the passkey share, and reports messaging with and without', () => {
    const operations = [
      measure('POST /api/verify-code/send', { auth: 'none', messages: { email: 1, sms: 0 }, secretPerColdStart: true }),
      measure('POST /api/verify-code/verify', { auth: 'none', secretPerColdStart: true }),
      measure('POST /api/auth/passkey/options', { auth: 'none', dynamoRequests: 0, readUnits: 0, secretPerColdStart: true }),
      measure('POST /api/auth/passkey/verify', { auth: 'none', secretPerColdStart: true }),
      measure('POST /api/auth/social/nonce', { auth: 'none', dynamoRequests: 0, readUnits: 0, secretPerColdStart: true }),
      measure('POST /api/auth/apple', { auth: 'none', secretPerColdStart: true }),
      measure('POST /api/auth/google', { auth: 'none', secretPerColdStart: true }),
      measure('POST /api/auth/wechat', { auth: 'none', secretPerColdStart: true }),
    ];
    const signIns = { 'POST /api/verify-code/send': 10, 'POST /api/verify-code/verify': 10 };
    const socialSignIns = { share: 0.3, providers: { apple: 0.5, google: 0.25, wechat: 0.25 } };
    const social = { ...profile, callsPerUserPerMonth: signIns, passkeySignInShare: 0.5, socialSignIns };
    expect(withSignInShares(social, { passkey: 0.5, social: 0.3 }).callsPerUserPerMonth).toEqual({
      'POST /api/verify-code/send': expect.closeTo(2, 9),
      'POST /api/verify-code/verify': expect.closeTo(2, 9),
      'POST /api/auth/passkey/options': 5,
      'POST /api/auth/passkey/verify': 5,
      'POST /api/auth/apple': 1.5,
      'POST /api/auth/google': 0.75,
      'POST /api/auth/wechat': 0.75,
      'POST /api/auth/social/nonce': 2.25,
    });
    expect(() => withSignInShares(social, { passkey: 0.8, social: 0.3 })).toThrow(/exceed 1/);
    const report = costReport({ operations, authorizer, prices, profile: social, settings, deployment: nothingMonthly });
    const figures = report.details.social!;
    expect(figures.signInShare).toBe(0.3);
    // Without the providers their sign-ins take codes: 5 a month instead of 2.
    expect(figures.withoutSocial.messagingPerThousandMauUsd).toBeCloseTo(5 * 0.0001 * 1000, 9);
    expect(figures.withSocial.messagingPerThousandMauUsd).toBeCloseTo(2 * 0.0001 * 1000, 9);
    expect(figures.withSocial.messagingPerThousandMauUsd).toBe(report.messagingPerThousandMauUsd);
    expect(figures.withSocial.totalPerThousandMauUsd).toBeLessThan(figures.withoutSocial.totalPerThousandMauUsd);
    // The passkey figures keep the social share: without passkeys, 7 codes.
    expect(report.details.passkeys!.withoutPasskeys.messagingPerThousandMauUsd).toBeCloseTo(7 * 0.0001 * 1000, 9);
    // A profile without the field reports no social figures.
    expect(costReport({ operations, authorizer, prices, profile: { ...profile, callsPerUserPerMonth: signIns }, settings, deployment: nothingMonthly }).details.social).toBeUndefined();
  });

  it('shows the app open with the summary against the separate reads it replaces, everything else alike', () => {
    const operations = [
      measure('GET /api/users/me/summary', { dynamoRequests: 4, readUnits: 4 }),
      ...APP_OPEN_READS.map((id) => measure(id)),
      measure('POST /api/transcriptions', { writeUnits: 2 }),
    ];
    const calls = { 'GET /api/users/me/summary': 60, 'GET /api/devices': 2, 'POST /api/transcriptions': 90 };
    const separate = withSeparateOpenReads({ ...profile, callsPerUserPerMonth: calls }).callsPerUserPerMonth;
    expect(separate).toEqual({
      'GET /api/users/me/summary': 0,
      'GET /api/users/me': 60,
      'GET /api/devices': 62,
      'GET /api/transcriptions/usage': 60,
      'GET /api/behavior/stats': 60,
      'POST /api/transcriptions': 90,
    });
    const report = costReport({ operations, authorizer, prices, profile: { ...profile, callsPerUserPerMonth: calls }, settings, deployment: nothingMonthly });
    const appOpen = report.details.appOpen!;
    expect(appOpen.summariesPerUserPerMonth).toBe(60);
    expect(appOpen.withSummary.requestsPerUserPerMonth).toBe(152);
    expect(appOpen.withSeparateReads.requestsPerUserPerMonth).toBe(152 - 60 + 4 * 60);
    expect(appOpen.withSummary.perThousandMauUsd).toBe(report.perThousandMauUsd);
    expect(appOpen.withSummary.perThousandMauUsd).toBeLessThan(appOpen.withSeparateReads.perThousandMauUsd);
  });

  it('derives the speech routes\' calls from the captioning hours and the heartbeat, and refuses a profile that also lists them', () => {
    const captioning = { hoursPerUserPerMonth: 10, sessionsPerUserPerMonth: 20, why: 'test' };
    const captions = { ...profile, callsPerUserPerMonth: {}, captioning };
    // 20 sessions of 30 minutes: a renewal each minute but the last (the end settles it).
    expect(derivedCalls(captions, { speechHeartbeatSeconds: 60 })).toEqual({ [SPEECH_START]: 20, [SPEECH_END]: 20, [SPEECH_RENEW]: 580 });
    expect(derivedCalls(captions, { speechHeartbeatSeconds: 30 })[SPEECH_RENEW]).toBe(20 * 59);
    // A session shorter than a heartbeat renews never.
    expect(derivedCalls({ ...captions, captioning: { ...captioning, hoursPerUserPerMonth: 0.1 } }, { speechHeartbeatSeconds: 60 })[SPEECH_RENEW]).toBe(0);
    expect(derivedCalls(profile, { speechHeartbeatSeconds: 60 })).toEqual({});
    expect(() => withDerivedCalls({ ...captions, callsPerUserPerMonth: { [SPEECH_RENEW]: 1200 } }, { speechHeartbeatSeconds: 60 })).toThrow(/follow from its captioning/);
  });

  it('shows what each speech provider bills for the profile\'s captioning beside the stack, and follows a changed price or a changed figure', () => {
    const operations = [measure(SPEECH_START), measure(SPEECH_RENEW), measure(SPEECH_END), measure('GET /api/users/me')];
    const captioning = { hoursPerUserPerMonth: 10, sessionsPerUserPerMonth: 20, why: 'test' };
    const input = { operations, authorizer, prices, profile: { ...profile, captioning }, settings, deployment: nothingMonthly };
    const report = costReport(input);
    const speech = report.details.speech!;
    expect(speech.renewalsPerUserPerMonth).toBe(580);
    expect(speech.providers.map((row) => row.provider).sort()).toEqual([...SPEECH_PROVIDER_NAMES].sort());
    const byProvider = (figures: typeof speech) => Object.fromEntries(figures.providers.map((row) => [row.provider, row.perThousandMauUsd]));
    // 10 hours for each of 1 000 people at the provider's price an hour.
    for (const row of speech.providers) expect(row.perThousandMauUsd).toBeCloseTo(10 * 1000 * prices.speechPerHour[row.provider]!.usd, 2);
    // The renewals are priced as the stack's calls: 620 speech calls a user on top of the 100 reads.
    expect(report.details.requestsPerUserPerMonth).toBe(100 + 20 + 580 + 20);
    const speechRoutes = report.details.perThousandMauByOperation.filter((row) => row.operation.startsWith('POST /api/speech/')).reduce((sum, row) => sum + row.usd, 0);
    expect(speech.speechRoutesPerThousandMauUsd).toBeCloseTo(speechRoutes, 3);
    // The provider's bill is beside the stack's, not in it.
    expect(report.perThousandMauUsd).toBeLessThan(speech.providers[0]!.perThousandMauUsd);
    // A dearer Deepgram moves Deepgram's row only.
    const dearer = { ...prices, speechPerHour: { ...prices.speechPerHour, deepgram: { ...prices.speechPerHour.deepgram!, usd: 2 } } };
    const repriced = byProvider(costReport({ ...input, prices: dearer }).details.speech!);
    expect(repriced.deepgram).toBeCloseTo(20_000, 2);
    expect({ ...repriced, deepgram: 0 }).toEqual({ ...byProvider(speech), deepgram: 0 });
    // Twice the hours: twice every provider's bill, and about twice the renewals.
    const twice = costReport({ ...input, profile: { ...profile, captioning: { ...captioning, hoursPerUserPerMonth: 20 } } });
    for (const [provider, usd] of Object.entries(byProvider(twice.details.speech!))) expect(usd).toBeCloseTo(2 * byProvider(speech)[provider]!, 2);
    expect(twice.details.speech!.renewalsPerUserPerMonth).toBe(20 * 59);
    // A longer heartbeat: fewer renewals, a cheaper stack, the same provider bill.
    const slower = costReport({ ...input, settings: { ...settings, speechHeartbeatSeconds: 120 } });
    expect(slower.details.speech!.renewalsPerUserPerMonth).toBe(20 * 14);
    expect(slower.perThousandMauUsd).toBeLessThan(report.perThousandMauUsd);
    expect(byProvider(slower.details.speech!)).toEqual(byProvider(speech));
    // Without captioning in the profile: no speech figures.
    expect(costReport({ ...input, profile }).details.speech).toBeUndefined();
  });

  it('prices the live channel by the open app\'s minutes, its pings and each change\'s pokes, and follows a changed price or profile figure', () => {
    const liveChannel = { connectionsPokedPerChange: 1.5, changesPerFanOutBatch: 1, why: 'test' };
    // 10 app opens of 12 minutes: 120 connection-minutes, 24 pings; 20 saves and 4 edits: 24 changes.
    const calls = { 'GET /api/users/me': 100, 'POST /api/transcriptions': 20, 'PATCH /api/transcriptions/{id}': 4 };
    const live = { ...profile, callsPerUserPerMonth: calls, liveChannel };
    const operations = [measure('GET /api/users/me'), measure('POST /api/transcriptions'), measure('PATCH /api/transcriptions/{id}'), measure(REALTIME_TICKET)];
    const input = { operations, authorizer, prices, profile: live, settings, deployment: nothingMonthly };
    const report = costReport(input);
    const channel = report.details.liveChannel!;
    expect(channel.openHoursPerUserPerMonth).toBe(2);
    expect(channel.connectionsPerUserPerMonth).toBe(10);
    expect(channel.changesPerUserPerMonth).toBe(24);
    expect(channel.messagesPerUserPerMonth).toEqual({ pokes: 36, pingsAndPongs: 48 });
    expect(channel.invocationsPerUserPerMonth).toEqual({ connection: 24 + 20, authorizer: 10, fanOut: 24 + 10 });
    const parts = channel.perThousandMauUsd;
    expect(parts.connectionMinutes).toBeCloseTo(120 * (0.25 / 1e6) * 1000, 4);
    expect(parts.messages).toBeCloseTo((36 + 48) * (1 / 1e6) * 1000, 4);
    expect(parts.streamReads).toBe(0);
    expect(parts.total).toBeCloseTo(parts.messages + parts.connectionMinutes + parts.lambda + parts.dynamoDb + parts.streamReads + parts.logs, 3);
    // An open hour: 60 connection-minutes and 12 pings with their pongs (and the pings' invocations and log lines).
    const pingInvocation = 0.2 + 0.25 * 0.003 * 0.0000133334 * 1e6;
    const pingLogLines = ((470 + LIVE_CHANNEL_WORK.accessLogBytes) / 1024 ** 3) * 0.5 * 1e6;
    expect(channel.usdPerMillionConnectionHours).toBeCloseTo(60 * 0.25 + 12 * (2 * 1 + pingInvocation + pingLogLines), 3);
    // A component of the stack's sum, outside the price per request; the tickets are derived from the opens.
    expect(report.details.perThousandMauByComponent.liveChannel).toBeCloseTo(parts.total, 4);
    expect(report.details.requestsPerUserPerMonth).toBe(100 + 24 + 10);
    const withoutChannel = costReport({ ...input, profile: { ...live, liveChannel: undefined, callsPerUserPerMonth: { ...calls, [REALTIME_TICKET]: 10 } } });
    expect(withoutChannel.details.liveChannel).toBeUndefined();
    expect(report.perThousandMauUsd - withoutChannel.perThousandMauUsd).toBeCloseTo(parts.total, 3);
    expect(report.perMillionRequestsUsd).toBeCloseTo(withoutChannel.perMillionRequestsUsd, 3);
    // Twice the message price: the messages part doubles, nothing else moves.
    const dearer = { ...prices, prices: { ...prices.prices, apiGatewayWebSocketPerMillionMessages: { ...prices.prices.apiGatewayWebSocketPerMillionMessages, usd: 2 } } };
    const repriced = costReport({ ...input, prices: dearer }).details.liveChannel!.perThousandMauUsd;
    expect(repriced.messages).toBeCloseTo(2 * parts.messages, 4);
    expect({ ...repriced, messages: 0, total: 0 }).toEqual({ ...parts, messages: 0, total: 0 });
    expect(repriced.total - parts.total).toBeCloseTo(parts.messages, 4);
    // Longer app opens: more minutes and pings, the same pokes; more changes: more pokes and fan-outs.
    const longer = costReport({ ...input, profile: { ...live, minutesPerSession: 24 } }).details.liveChannel!;
    expect(longer.perThousandMauUsd.connectionMinutes).toBeCloseTo(2 * parts.connectionMinutes, 4);
    expect(longer.messagesPerUserPerMonth).toEqual({ pokes: 36, pingsAndPongs: 96 });
    const busier = costReport({ ...input, profile: { ...live, callsPerUserPerMonth: { ...calls, 'POST /api/transcriptions': 44 } } }).details.liveChannel!;
    expect(busier.messagesPerUserPerMonth.pokes).toBe(72);
    expect(busier.invocationsPerUserPerMonth.fanOut).toBe(48 + 10);
    // Fuller stream batches: fewer fan-outs, a cheaper change.
    const batched = costReport({ ...input, profile: { ...live, liveChannel: { ...liveChannel, changesPerFanOutBatch: 4 } } }).details.liveChannel!;
    expect(batched.invocationsPerUserPerMonth.fanOut).toBe(6 + 10);
    expect(batched.usdPerMillionChanges).toBeLessThan(channel.usdPerMillionChanges);
    // Past API Gateway's 2 hours an open app reconnects with a new ticket.
    expect(derivedCalls({ ...live, minutesPerSession: 150 }, settings)[REALTIME_TICKET]).toBe(20);
    expect(() => withDerivedCalls({ ...live, callsPerUserPerMonth: { ...calls, [REALTIME_TICKET]: 10 } }, settings)).toThrow(/live channel/);
  });

  it('never runs the authorizer more often than there are Bearer calls', () => {
    const report = costReport({
      operations: [measure('GET /api/users/me')],
      authorizer,
      prices,
      profile: { ...profile, callsPerUserPerMonth: { 'GET /api/users/me': 4 } },
      settings: { ...settings, authorizerCacheSeconds: 0 },
      deployment: nothingMonthly,
    });
    expect(report.details.authorizerInvocationsPerUserPerMonth).toBe(4);
  });

  it('spreads what the deployment pays by the month over its users, and keeps it out of the price per request', () => {
    const deployment = { ...nothingMonthly, webAcls: 1, wafRules: 2, alarms: 10, dashboards: 1, customMetrics: 20, secrets: 1 };
    // $5 + 2 x $1 + 10 x $0.10 + $3 + 20 x $0.30 + $0.40
    expect(fixedMonthlyUsd(deployment, prices.prices)).toBeCloseTo(17.4, 9);
    const input = { operations: [measure('GET /api/users/me')], authorizer: { ...authorizer, secretPerColdStart: false }, prices, profile, settings };
    const without = costReport({ ...input, deployment: nothingMonthly });
    const withCharges = costReport({ ...input, deployment });
    expect(withCharges.perThousandMauUsd - without.perThousandMauUsd).toBeCloseTo((17.4 / 100_000) * 1000, 9);
    expect(withCharges.details.perThousandMauByComponent.fixedMonthly).toBeCloseTo(0.174, 4);
    expect(withCharges.perMillionRequestsUsd).toBe(without.perMillionRequestsUsd);
    // Ten times fewer users carry ten times the share each.
    const small = costReport({ ...input, profile: { ...profile, mau: 10_000 }, deployment });
    expect(small.details.perThousandMauByComponent.fixedMonthly).toBeCloseTo(1.74, 4);
  });

  it('re-reads the root secret once per warm container and key age, never more often than a function is called', () => {
    // 30 days of 5-minute windows, 2 containers: 17 280 reads at most.
    expect(agedSecretReads(1_000_000, profile, 300)).toBe(17_280);
    expect(agedSecretReads(5_000, profile, 300)).toBe(5_000);
    const report = costReport({
      operations: [measure('POST /api/verify-code/send', { auth: 'none', secretPerColdStart: true })],
      authorizer,
      prices,
      profile: { ...profile, callsPerUserPerMonth: { 'POST /api/verify-code/send': 1 } },
      settings,
      deployment: nothingMonthly,
    });
    // 100 000 sends a month read at most 17 280 times; the authorizer is not run (no Bearer calls).
    expect(report.details.agedSecretReadsPerUserPerMonth).toBeCloseTo(17_280 / 100_000, 6);
    expect(report.details.perThousandMauByComponent.secretReads).toBeCloseTo((17_280 / 100_000) * (0.05 / 1e4) * 1000, 4);
  });

  it('counts the monthly charges in the synthesized template, and one custom metric per dimension value', () => {
    const resources = {
      acl: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}] } },
      a: { Type: 'AWS::CloudWatch::Alarm' },
      b: { Type: 'AWS::CloudWatch::Alarm' },
      d: { Type: 'AWS::CloudWatch::Dashboard' },
      s: { Type: 'AWS::SecretsManager::Secret' },
      f: { Type: 'AWS::Lambda::Function' },
    };
    const counted = inventoryOf(resources, 'prod', profile);
    expect(counted).toMatchObject({ webAcls: 1, wafRules: 3, alarms: 2, compositeAlarms: 0, dashboards: 1, secrets: 1 });
    // SMS to more countries makes more `country` series.
    const moreCountries = { ...profile, codeChannels: { email: 0, sms: { US: 0.5, GB: 0.5 } } };
    expect(customMetricSeries(moreCountries) - customMetricSeries(profile)).toBe(2);
  });

  it('averages a message over the channels of the profile', () => {
    const mixed = { ...profile, codeChannels: { email: 0.5, sms: { US: 0.5 } } };
    expect(messageCost(prices, mixed)).toBeCloseTo(0.5 * prices.prices.sesPerEmail.usd + 0.5 * prices.smsPerMessage.US!.usd, 12);
    expect(() => messageCost(prices, { ...profile, codeChannels: { email: 0, sms: { ZZ: 1 } } })).toThrow(/ZZ/);
  });

  it('sizes log lines from the stack: the access log format filled in, and the platform lines of the memory size', () => {
    const health = routes.find((route) => routeId(route) === 'GET /api/health')!;
    const me = routes.find((route) => routeId(route) === 'GET /api/users/me')!;
    expect(accessLogBytes(me)).toBeGreaterThan(accessLogBytes(health));
    expect(platformLogBytes(1769)).toBe(platformLogBytes(256) + 1);
  });
});
