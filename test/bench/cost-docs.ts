import { SEARCH_READ_ITEMS } from '../../shared/db/transcriptions-repository';
import { BREAKDOWN_LABELS } from './cost-model';
import type { Breakdown, CostReport, UsageProfile } from './cost-model';
import type { AuthorizerMeasure } from './cost-measure';

/**
 * What docs/cost.md quotes of the last `npm run cost`: the per-operation table and the sums,
 * rendered from the report as `cost/report.json` keeps it, so test/unit/docs-generated.test.ts can
 * hold the page to the committed report.
 */
export const COST_DOCS_FILE = 'docs/cost.md';
export const COST_REPORT_FILE = 'cost/report.json';
/** The search page as the profile and the report name it (test/bench/cost-drivers.ts COST_VARIANTS). */
const SEARCH_PAGE = 'GET /api/transcriptions?q';

/** The report as written to cost/report.json: the model's report, and what the page needs beside it. */
export type DocumentedCostReport = CostReport & {
  details: CostReport['details'] & {
    /** The profile the run was priced with: its calls per user a month, by route id. */
    callsPerUserPerMonth: Record<string, number>;
    /** When and on which Node.js the run was measured. */
    run: { date: string; node: string };
    /** The authorizer's measured run, as the operations' rows carry theirs. */
    authorizer: Pick<AuthorizerMeasure, 'dynamoRequests' | 'readUnits' | 'writeUnits' | 'handlerMs' | 'memoryMb' | 'functionLogBytes'>;
  };
};

export function documentedReport(report: CostReport, profile: UsageProfile, authorizer: AuthorizerMeasure, run: { date: string; node: string }): DocumentedCostReport {
  const { dynamoRequests, readUnits, writeUnits, handlerMs, memoryMb, functionLogBytes } = authorizer;
  return {
    ...report,
    details: {
      ...report.details,
      run,
      callsPerUserPerMonth: { ...profile.callsPerUserPerMonth },
      authorizer: { dynamoRequests, readUnits, writeUnits, handlerMs, memoryMb, functionLogBytes },
    },
  };
}

const usd = (value: number, digits = 2) => `$${value.toFixed(digits)}`;

/** The per-operation table: the measured counts, and the dollars of one call and of the profile's calls. */
export function operationsTable(report: DocumentedCostReport): string {
  const perThousandOf = new Map(report.details.perThousandMauByOperation.map((row) => [row.operation, row.usd]));
  const { authorizer, callsPerUserPerMonth } = report.details;
  const rows = [
    '| operation | calls / user / month | DynamoDB requests | RCU | WCU (Local) | WCU per item (AWS floor) | handler ms | MB | log bytes | $ per million calls | $ per 1 000 MAU |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...report.operations.map(
      (row) =>
        `| ${row.operation} | ${callsPerUserPerMonth[row.operation] ?? 0} | ${row.dynamoRequests} | ${row.readUnits} | ${row.writeUnits} | ` +
        `${row.writeUnitsPerItemFloor} | ${row.handlerMs.toFixed(1)} | ${row.memoryMb} | ${row.logBytes} | ${row.usdPerMillion.toFixed(2)} | ${(perThousandOf.get(row.operation) ?? 0).toFixed(3)} |`,
    ),
    `| authorizer (per run) | ${report.details.authorizerInvocationsPerUserPerMonth} runs | ${authorizer.dynamoRequests} | ${authorizer.readUnits} | ${authorizer.writeUnits} | 0 | ` +
      `${authorizer.handlerMs.toFixed(1)} | ${authorizer.memoryMb} | ${authorizer.functionLogBytes} | ${report.details.authorizerUsdPerMillionRuns.toFixed(2)} | ${report.details.authorizerPerThousandMauUsd.toFixed(3)} |`,
  ];
  return `${rows.join('\n')}\n`;
}

const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)} %`;

/** `, about 5 % of Amazon Cognito Essentials' list price`, where the goal's anchor has a list price. */
function anchorShare(report: CostReport, usdPerThousand: number): string {
  const anchor = report.anchors.find((candidate) => candidate.name === report.details.goal.anchor);
  return anchor?.perThousandMauUsd ? `, about ${percent(usdPerThousand, anchor.perThousandMauUsd)} of ${anchor.name}' list price` : '';
}

/** Issue 30: messaging and the total without passkeys and with the profile's share of passkey sign-ins. */
function passkeyLines(report: CostReport): string[] {
  const passkeys = report.details.passkeys;
  if (!passkeys) return [];
  const { withoutPasskeys: without, withPasskeys: with_ } = passkeys;
  return [
    `- **Passkeys** ([passkeys.md](passkeys.md)): the profile makes ${Math.round(passkeys.signInShare * 100)} % of the monthly sign-ins with a passkey (\`passkeySignInShare\`; the code sign-in calls in the table stand for every sign-in, and that share of them goes to \`POST /api/auth/passkey/options\` and \`/verify\`, which send nothing). ` +
      `Without passkeys: messaging ${usd(without.messagingPerThousandMauUsd)} + the stack ${usd(without.perThousandMauUsd)} = **${usd(without.totalPerThousandMauUsd)}**; ` +
      `with them: messaging ${usd(with_.messagingPerThousandMauUsd)} + the stack ${usd(with_.perThousandMauUsd)} = **${usd(with_.totalPerThousandMauUsd)}** per 1 000 MAU a month.`,
  ];
}

/** Issue 38: messaging and the total without sign-ins by Apple, Google or WeChat and with the profile's share. */
function socialLines(report: CostReport): string[] {
  const social = report.details.social;
  if (!social) return [];
  const { withoutSocial: without, withSocial: with_ } = social;
  return [
    `- **Apple, Google, WeChat** ([social-sign-in.md](social-sign-in.md)): the profile makes ${Math.round(social.signInShare * 100)} % of the monthly sign-ins with a provider (\`socialSignIns\`; that share of the code sign-in calls goes to \`POST /api/auth/apple\`, \`/google\` and \`/wechat\`, the first two after \`POST /api/auth/social/nonce\`, and sends no message). ` +
      `Without them: messaging ${usd(without.messagingPerThousandMauUsd)} + the stack ${usd(without.perThousandMauUsd)} = **${usd(without.totalPerThousandMauUsd)}**; ` +
      `with them: messaging ${usd(with_.messagingPerThousandMauUsd)} + the stack ${usd(with_.perThousandMauUsd)} = **${usd(with_.totalPerThousandMauUsd)}** per 1 000 MAU a month (passkeys as above in both).`,
  ];
}

/** Issue 29: the app open in one request against the separate reads it replaces. */
function appOpenLines(report: CostReport): string[] {
  const appOpen = report.details.appOpen;
  if (!appOpen || appOpen.summariesPerUserPerMonth === 0) return [];
  const { withSummary, withSeparateReads } = appOpen;
  return [
    `- **App open in one request** ([api.md](api.md), \`GET /api/users/me/summary\`): the profile's ${appOpen.summariesPerUserPerMonth} app opens a month each read the summary. ` +
      `With the separate reads it replaces (the profile, devices, usage and statistics: one request each) the same month would be ${Math.round(withSeparateReads.requestsPerUserPerMonth)} requests and ` +
      `${usd(withSeparateReads.perThousandMauUsd)} per 1 000 MAU; with the summary it is ${Math.round(withSummary.requestsPerUserPerMonth)} requests and **${usd(withSummary.perThousandMauUsd)}**.`,
  ];
}

/** Issue 31: one search page as priced, and what a search of a long history costs at worst. */
function searchLines(report: DocumentedCostReport): string[] {
  const page = report.operations.find((row) => row.operation === SEARCH_PAGE);
  if (!page) return [];
  const pages = report.details.callsPerUserPerMonth[SEARCH_PAGE] ?? 0;
  return [
    `- **Search** ([search-and-export.md](search-and-export.md)): one page (\`${SEARCH_PAGE}\`, a read of up to ${SEARCH_READ_ITEMS} records, here ${SEARCH_READ_ITEMS} of about 1 500 characters that hold no hit) is ` +
      `${page.readUnits} read units and ${usd(page.usdPerMillion)} per million pages; the profile pays ${pages} pages a user a month (a few searches of a few pages each). ` +
      `A search that finds nothing reads the whole history: a person with N × ${SEARCH_READ_ITEMS} records pays N pages, ${usd(page.usdPerMillion / 1e6, 6)} each.`,
  ];
}

/** The sums of the run and where the money goes. */
export function sumsSection(report: DocumentedCostReport): string {
  const { details } = report;
  const { deployment } = details;
  const total = report.perThousandMauUsd;
  const components = (Object.entries(details.perThousandMauByComponent) as [keyof Breakdown, number][])
    .filter(([, value]) => value >= 0.005)
    .sort(([, a], [, b]) => b - a)
    .map(([name, value]) => `${BREAKDOWN_LABELS[name]} ${usd(value)} (${percent(value, total)})`);
  const topOperations = details.perThousandMauByOperation.slice(0, 5).map((row) => `${row.operation} ${usd(row.usd)}`);
  return [
    `The run of ${details.run.date} on Node.js ${details.run.node} (\`${COST_REPORT_FILE}\` holds it in full). The sums, at ${details.mau.toLocaleString('en-US').replace(/,/g, ' ')} MAU, messaging excluded:`,
    '',
    `- **${Math.round(details.requestsPerUserPerMonth)} requests a user a month; ${usd(report.perMillionRequestsUsd)} per million requests** of this mix (storage, the live channel and the monthly charges excluded).`,
    `- **${usd(total)} per 1 000 MAU a month.** The sign-in part alone (the identity and session routes and the authorizer, what Cognito would replace) is **${usd(details.identityPerThousandMauUsd)}**${anchorShare(report, details.identityPerThousandMauUsd)}.`,
    `- With transactions billed per item as DynamoDB bills them: **${usd(details.withPerItemTransactions.perThousandMauUsd)}** (DynamoDB ${usd(details.withPerItemTransactions.dynamoDbPerThousandMauUsd)} instead of ${usd(details.perThousandMauByComponent.dynamoDb)}).`,
    `- The deployment pays ${usd(deployment.fixedMonthlyUsd)} a month whatever its traffic (the WAF web ACL${deployment.webAcls === 0 ? ' (none)' : ''} and its ${deployment.wafRules} rules, ${deployment.alarms} alarms, ` +
      `${deployment.dashboards} dashboard, ${deployment.customMetrics} custom metrics, ${deployment.secrets} secret): ${usd(details.perThousandMauByComponent.fixedMonthly)} per 1 000 MAU at this scale.`,
    `- **Messaging: ${usd(report.messagingPerThousandMauUsd)} per 1 000 MAU a month** on top.`,
    ...passkeyLines(report),
    ...socialLines(report),
    ...appOpenLines(report),
    ...searchLines(report),
    `- **Goal: at most ${usd(details.goal.maxPerThousandMauUsd)} per 1 000 MAU (a fifth of ${details.goal.anchor}' list price): ${details.goal.met ? 'met' : 'missed'}.**`,
    '',
    `**Where the money goes** (per 1 000 MAU a month): ${components.join(', ')}. By operation: ${topOperations.join(', ')}; the authorizer ${usd(details.authorizerPerThousandMauUsd)}.`,
    '',
  ].join('\n');
}

/** Whole dollars with a space between thousands, as the page writes numbers: $14 400. */
const dollars = (value: number) => `$${Math.round(value).toLocaleString('en-US').replace(/,/g, ' ')}`;

const PROVIDER_NAMES: Record<string, string> = { azure: 'Azure Speech', deepgram: 'Deepgram', aws: 'Amazon Transcribe (streaming)', tencent: 'Tencent Cloud real-time ASR' };

/**
 * Issue 44: the speech providers' bill for the profile's captioning, each provider's price per
 * hour with its source and the date it was read, beside the service's own cost.
 */
export function speechSection(report: DocumentedCostReport): string {
  const speech = report.details.speech;
  if (!speech) return 'The usage profile has no `captioning`: no speech cost is computed.\n';
  const stack = report.perThousandMauUsd;
  const rows = speech.providers.map(
    (row) =>
      `| ${PROVIDER_NAMES[row.provider] ?? row.provider} (\`${row.provider}\`) | ${usd(row.usdPerHour, 3)}${row.verified ? '' : ' (unconfirmed)'} | ${dollars(row.perThousandMauUsd)} | ` +
      `${dollars(row.perThousandMauUsd + stack)} | ${((100 * stack) / (row.perThousandMauUsd + stack)).toFixed(2)} % | [${new URL(row.source).host}${new URL(row.source).pathname}](${row.source}), read ${row.date} |`,
  );
  return [
    `The profile captions **${speech.hoursPerUserPerMonth} hours a person a month** in ${speech.sessionsPerUserPerMonth} sessions; with a heartbeat of ${speech.heartbeatSeconds} s ` +
      `(\`SPEECH_HEARTBEAT_SECONDS\`) that is ${speech.renewalsPerUserPerMonth} renewals a month, derived, never listed in the profile. The service's own part of it, the speech routes ` +
      `(start, renew, end, quota) in the table above, is ${usd(speech.speechRoutesPerThousandMauUsd)} per 1 000 MAU of the stack's ${usd(stack)}. The provider bills by the hour of audio:`,
    '',
    "| provider | $ per hour | the provider, per 1 000 MAU a month | with the stack, per 1 000 MAU | the stack's share | price from |",
    '|---|--:|--:|--:|--:|---|',
    ...rows,
    '',
  ].join('\n');
}

/** Issue 45: the live channel's month by part, and the price of a change's pokes and of an open hour. */
export function liveChannelSection(report: DocumentedCostReport): string {
  const live = report.details.liveChannel;
  if (!live) return 'The usage profile has no `liveChannel`: the live channel is not priced.\n';
  const parts = live.perThousandMauUsd;
  const row = (what: string, usdValue: number) => `| ${what} | ${usd(usdValue, 3)} |`;
  return [
    `The profile's ${live.openHoursPerUserPerMonth} hours of open apps a person a month hold ${live.connectionsPerUserPerMonth} connections (one ticket each, \`POST /api/realtime/ticket\` in the table above); ` +
      `its ${live.changesPerUserPerMonth} record changes poke ${live.connectionsPokedPerChange} connections each: ${live.messagesPerUserPerMonth.pokes} pokes, beside ${live.messagesPerUserPerMonth.pingsAndPongs} pings and pongs. ` +
      `The functions run ${live.invocationsPerUserPerMonth.connection} times (pings, $connect, $disconnect), the authorizer ${live.invocationsPerUserPerMonth.authorizer}, the fan-out ${live.invocationsPerUserPerMonth.fanOut} (a batch per change, and one per closed connection).`,
    '',
    '| part | $ per 1 000 MAU a month |',
    '|---|--:|',
    row('API Gateway WebSocket messages (pokes, pings, pongs)', parts.messages),
    row('API Gateway WebSocket connection-minutes', parts.connectionMinutes),
    row('Lambda: the connection function, the $connect authorizer, the fan-out', parts.lambda),
    row('DynamoDB: the connection items written, the fan-out\'s reads', parts.dynamoDb),
    row('DynamoDB stream reads by the fan-out', parts.streamReads),
    row('CloudWatch Logs: the functions\' platform lines, the stage\'s access log', parts.logs),
    `| **the live channel** | **${usd(parts.total, 3)}** |`,
    '',
    `**A change's pokes** (its share of a fan-out batch, the account's two reads and a message to each of ${live.connectionsPokedPerChange} connections): ${usd(live.usdPerMillionChanges)} per million changes. ` +
      `**An hour of an open app** (60 connection-minutes and 12 pings with their pongs and the function answering them): ${usd(live.usdPerMillionConnectionHours)} per million connection-hours.`,
    '',
  ].join('\n');
}

/** The generated sections of docs/cost.md, by name. */
export const costDocsSections = (report: DocumentedCostReport): Record<string, string> => ({
  'cost-operations': operationsTable(report),
  'cost-sums': sumsSection(report),
  'cost-speech': speechSection(report),
  'cost-live': liveChannelSection(report),
});
