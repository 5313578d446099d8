import { DescribeTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { GetItemCommandInput } from '@aws-sdk/client-dynamodb';
import { AUTHORIZER_MEMORY_MB, memoryMbOf } from '../../infra/constructs/service-function';
import { ACCESS_LOG_FORMAT } from '../../infra/constructs/operations';
import { authorizer, routeId, routes } from '../../shared/routes';
import type { RouteDefinition, RouteId } from '../../shared/routes';
import { addUsage, emptyUsage, unitsOf } from './consumed-capacity';
import type { DynamoUsage } from './consumed-capacity';
import { COST_DRIVERS, COST_VARIANTS } from './cost-drivers';
import type { CostDriver, DriverContext } from './cost-drivers';
import type { SeededAccount } from './fixtures';
import { TYPICAL_ACCOUNT, seedAccount } from './fixtures';
import type { Bench, WorkUsage } from './harness';
import { median, round } from './stats';

/**
 * One call of every route through its real handler against DynamoDB Local (drivers in
 * cost-drivers.ts), and one authorizer invocation: what each costs in the units AWS bills.
 * Counts are the smallest of the measured calls (an id allocator reserves a block of 64 ids with
 * one extra write now and then: 1/64 of a write per created item, left out so the counts are
 * deterministic); times are medians.
 */
export interface OperationMeasure {
  operation: string;
  auth: RouteDefinition['auth'];
  dynamoRequests: number;
  readUnits: number;
  writeUnits: number;
  /** At least what DynamoDB bills for the same writes: see DynamoUsage.writeUnitsPerItemFloor. */
  writeUnitsPerItemFloor: number;
  commands: string[];
  handlerMs: number;
  memoryMb: number;
  /** The function's own log lines plus Lambda's platform lines (see platformLogBytes). */
  functionLogBytes: number;
  /** The API access log line (infra/constructs/operations.ts ACCESS_LOG_FORMAT, filled in). */
  accessLogBytes: number;
  /** Response body and headers as the handler returned them. */
  responseBytes: number;
  /** How much the table grew (negative: shrank), as DynamoDB Local reports TableSizeBytes. */
  storedBytes: number;
  messages: { email: number; sms: number };
  /** Reads the root secret from Secrets Manager once per container, on its first use. */
  secretPerColdStart: boolean;
}

export interface AuthorizerMeasure {
  dynamoRequests: number;
  readUnits: number;
  writeUnits: number;
  handlerMs: number;
  memoryMb: number;
  functionLogBytes: number;
  secretPerColdStart: boolean;
}

/**
 * Lambda's own lines per invocation in JSON log format (the stack's LoggingFormat.JSON):
 * `platform.start` and `platform.report`, here with representative values (a request id, a
 * trace header as active tracing adds it). Not measured: nothing local writes them.
 */
export function platformLogBytes(memoryMb: number): number {
  const time = '2026-11-23T18:42:14.123Z';
  const requestId = '6d68ca91-49c9-448d-89b8-7ca3e6dc66aa';
  const lines = [
    { time, type: 'platform.start', record: { requestId, version: '$LATEST' } },
    {
      time,
      type: 'platform.report',
      record: {
        requestId,
        metrics: { durationMs: 12.35, billedDurationMs: 13, memorySizeMB: memoryMb, maxMemoryUsedMB: 96 },
        tracing: { spanId: '6f5b1c2a3d4e5f60', type: 'X-Amzn-Trace-Id', value: 'Root=1-6563a1b2-0123456789abcdef01234567;Parent=6f5b1c2a3d4e5f60;Sampled=0' },
        status: 'success',
      },
    },
  ];
  return lines.reduce((sum, line) => sum + Buffer.byteLength(JSON.stringify(line)) + 1, 0);
}

/** The access log line API Gateway writes for one request of `route` (typical values). */
export function accessLogBytes(route: RouteDefinition, status = 200): number {
  const bearer = route.auth === 'bearer';
  const values: Record<string, string> = {
    '$context.requestId': '5f0c3f8e-1a2b-4c3d-9e8f-0a1b2c3d4e5f',
    '$context.requestTime': '23/Nov/2026:18:42:14 +0000',
    '$context.httpMethod': route.method,
    '$context.resourcePath': route.path,
    '$context.status': String(status),
    '$context.responseLatency': '38',
    '$context.integration.status': '200',
    '$context.integration.latency': '31',
    '$context.error.responseType': '-',
    '$context.error.message': '-',
    '$context.authorizer.status': bearer ? '200' : '-',
    '$context.authorizer.latency': bearer ? '0' : '-',
    '$context.authorizer.principalId': bearer ? '1000042' : '-',
    '$context.waf.status': '-',
  };
  const line = ACCESS_LOG_FORMAT.replace(/\$context\.[\w.]+/g, (name) => {
    const value = values[name];
    if (value === undefined) throw new Error(`accessLogBytes: no typical value for ${name}`);
    return value;
  });
  return Buffer.byteLength(line) + 1;
}

const responseBytes = (result: { body: string; headers?: Record<string, unknown> }) =>
  Buffer.byteLength(result.body ?? '') +
  Object.entries(result.headers ?? {}).reduce((sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${String(value)}\r\n`), 0);

/** The table's size as DynamoDB Local reports it, which it keeps current (DynamoDB itself updates it every few hours). */
async function tableBytes(bench: Bench): Promise<number> {
  const { Table } = await bench.bare.send(new DescribeTableCommand({ TableName: bench.config.TABLE_NAME }));
  return Table?.TableSizeBytes ?? 0;
}

/** Routes of the table without a driver: not measured, and a failing test. */
export const routesWithoutDriver = (): string[] => routes.map(routeId).filter((id) => !COST_DRIVERS[id as RouteId]);

export interface MeasureOptions {
  /** Calls per operation after one unmeasured warm-up call; 2 is enough for the counts. */
  repeats: number;
  only?: (id: string) => boolean;
  onProgress?: (id: string, index: number, total: number) => void;
}

export interface Measured {
  operations: OperationMeasure[];
  authorizer: AuthorizerMeasure;
  typical: SeededAccount;
}

export async function measureOperations(bench: Bench, options: MeasureOptions): Promise<Measured> {
  const typical = await seedAccount(bench, 'typical', TYPICAL_ACCOUNT);
  const context: DriverContext = { bench, typical, fresh: (label) => bench.signUp(label) };
  const measurable: { id: string; route: RouteDefinition; driver: CostDriver }[] = [
    ...routes.flatMap((route) => {
      const driver = COST_DRIVERS[routeId(route) as RouteId];
      return driver ? [{ id: routeId(route), route, driver }] : [];
    }),
    ...Object.entries(COST_VARIANTS).map(([id, variant]) => ({ id, route: routes.find((route) => routeId(route) === variant.route)!, driver: variant.driver })),
  ];
  const selected = measurable.filter(({ id }) => options.only?.(id) ?? true);
  const operations: OperationMeasure[] = [];
  for (const [index, { id, route, driver }] of selected.entries()) {
    options.onProgress?.(id, index, selected.length);
    operations.push(await measureOperation(bench, { id, route, driver }, context, options.repeats));
  }
  return { operations, authorizer: await measureAuthorizer(bench, typical, options.repeats), typical };
}

async function measureOperation(
  bench: Bench,
  { id, route, driver }: { id: string; route: RouteDefinition; driver: CostDriver },
  context: DriverContext,
  repeats: number,
): Promise<OperationMeasure> {
  const run = await bench.handler(route);
  const once = async () => {
    const spec = await driver.prepare(context);
    const event = bench.event(route, spec);
    const lambdaContext = bench.context(route, event);
    let result: Awaited<ReturnType<typeof run>> | undefined;
    let ms = 0;
    const sizeBefore = await tableBytes(bench);
    const used = await bench.usage(async () => {
      const started = performance.now();
      result = await run(event, lambdaContext);
      ms = performance.now() - started;
    });
    if (!result || result.statusCode < 200 || result.statusCode > 299) throw new Error(`${id} answered ${result?.statusCode}: ${result?.body}`);
    return { used, ms, bytes: responseBytes(result), stored: (await tableBytes(bench)) - sizeBefore };
  };
  await once();
  const samples: { used: WorkUsage; ms: number; bytes: number; stored: number }[] = [];
  for (let index = 0; index < repeats; index++) samples.push(await once());
  const least = (pick: (usage: WorkUsage) => number) => Math.min(...samples.map((sample) => pick(sample.used)));
  const fewest = samples.reduce((best, sample) => (sample.used.dynamo.requests < best.used.dynamo.requests ? sample : best));
  const memoryMb = memoryMbOf(route);
  return {
    operation: id,
    auth: route.auth,
    dynamoRequests: least((usage) => usage.dynamo.requests),
    readUnits: least((usage) => usage.dynamo.readUnits),
    writeUnits: least((usage) => usage.dynamo.writeUnits),
    writeUnitsPerItemFloor: least((usage) => usage.dynamo.writeUnitsPerItemFloor),
    commands: fewest.used.dynamo.commands.map((name) => name.replace(/Command$/, '')),
    handlerMs: round(median(samples.map((sample) => sample.ms)), 2),
    memoryMb,
    functionLogBytes: least((usage) => usage.logBytes) + platformLogBytes(memoryMb),
    accessLogBytes: accessLogBytes(route),
    responseBytes: Math.min(...samples.map((sample) => sample.bytes)),
    storedBytes: median(samples.map((sample) => sample.stored)),
    messages: { email: least((usage) => usage.messages.email), sms: least((usage) => usage.messages.sms) },
    secretPerColdStart: route.secret,
  };
}

/**
 * The authorizer reads DynamoDB with a fetch signed by the SDK's signer, not an SDK client (shared/adapters/signed-reads.ts),
 * so the capacity middleware does not see it: its requests are counted at `fetch`, and each
 * DynamoDB request is sent once more through the SDK with `ReturnConsumedCapacity` to read its units.
 */
async function measureAuthorizer(bench: Bench, account: SeededAccount, repeats: number): Promise<AuthorizerMeasure> {
  const original = globalThis.fetch;
  const calls: { target: string; body: string }[] = [];
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    calls.push({ target: headers.get('x-amz-target') ?? '', body: typeof init?.body === 'string' ? init.body : '' });
    return original(input, init);
  }) as typeof fetch;
  const times: number[] = [];
  let usage: DynamoUsage = emptyUsage();
  let logBytes = 0;
  try {
    await bench.authorize(account.token);
    for (let index = 0; index < repeats; index++) {
      calls.length = 0;
      let ms = 0;
      const used = await bench.usage(async () => {
        const started = performance.now();
        await bench.authorize(account.token);
        ms = performance.now() - started;
      });
      times.push(ms);
      logBytes = used.logBytes;
      usage = emptyUsage();
      for (const call of calls.filter((candidate) => candidate.target.startsWith('DynamoDB_'))) {
        const operation = call.target.split('.')[1]!;
        if (operation !== 'GetItem') throw new Error(`the authorizer sent ${operation}; only GetItem is replayed`);
        const input = JSON.parse(call.body) as GetItemCommandInput;
        const output = await bench.bare.send(new GetItemCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
        addUsage(usage, { requests: 1, ...unitsOf('GetItemCommand', output.ConsumedCapacity), writeUnitsPerItemFloor: 0, commands: ['GetItem'] });
      }
    }
  } finally {
    globalThis.fetch = original;
  }
  return {
    dynamoRequests: usage.requests,
    readUnits: usage.readUnits,
    writeUnits: usage.writeUnits,
    handlerMs: round(median(times), 2),
    memoryMb: AUTHORIZER_MEMORY_MB,
    functionLogBytes: logBytes + platformLogBytes(AUTHORIZER_MEMORY_MB),
    secretPerColdStart: authorizer.secret,
  };
}
