import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReadOperation, SeededAccount } from './fixtures';
import { findRoute, replay, timeHandlerCall, waves } from './harness';
import type { Bench, RecordedCommand } from './harness';
import { median, pairedRatio, ratio, round, shuffled } from './stats';

/**
 * What the service adds to the DynamoDB round trips of a request: the handler, invoked in process
 * with a REST proxy event, against exactly the DynamoDB commands it issued, replayed on a bare
 * document client with the same settings. Both run alternately in one loop.
 */
export interface OverheadResult {
  operation: string;
  handlerP50Us: number;
  bareP50Us: number;
  ratio: number;
}

export interface ThroughputResult {
  operation: string;
  handlerOpsPerSec: number;
  bareOpsPerSec: number;
  ratio: number;
  concurrency: number;
}

/** A read operation ready to run both ways: `handler()` and `bare()` each do one request and return its duration in ms. */
export interface PairedOperation {
  id: string;
  commands: RecordedCommand[];
  handler(): Promise<number>;
  bare(): Promise<number>;
}

/** Events built ahead, as API Gateway builds them before the function is called: not the handler's cost. */
const EVENT_POOL = 64;

export async function pairOperation(bench: Bench, operation: ReadOperation, account: SeededAccount, bare: DynamoDBDocumentClient = bench.bare): Promise<PairedOperation> {
  const route = findRoute(operation.id);
  const run = await bench.handler(route);
  const spec = operation.spec(account);
  const invocations = Array.from({ length: EVENT_POOL }, () => {
    const event = bench.event(route, spec);
    return { event, context: bench.context(route, event) };
  });
  let next = 0;
  const handler = async () => {
    const { event, context } = invocations[next++ % EVENT_POOL]!;
    return timeHandlerCall(run, event, context, operation.id);
  };
  for (let index = 0; index < 10; index++) await handler();
  const commands = await bench.record(handler);
  if (commands.length === 0) throw new Error(`${operation.id} issued no DynamoDB command`);
  const plan = waves(commands);
  let replays = 0;
  const bareOnce = async () => {
    const started = performance.now();
    await replay(bare, appendsAsNew(plan, replays++));
    return performance.now() - started;
  };
  for (let index = 0; index < 10; index++) await bareOnce();
  return { id: operation.id, commands, handler, bare: bareOnce };
}

/**
 * An append-only put (conditioned on its key being new: the audit entry every /admin request
 * writes) replayed as recorded would find its key taken from the second replay on and fail; each
 * replay gets a key of its own instead (`#bare-<n>` on the sort key), the same conditional write of
 * a new item the handler makes. Other commands are replayed as recorded.
 */
function appendsAsNew(plan: RecordedCommand[][], replay: number): RecordedCommand[][] {
  return plan.map((wave) =>
    wave.map((command) => {
      const input = command.input as { Item?: Record<string, unknown>; ConditionExpression?: string };
      if (command.Command !== PutCommand || input.ConditionExpression !== 'attribute_not_exists(PK)' || !input.Item) return command;
      return { ...command, input: { ...input, Item: { ...input.Item, SK: `${String(input.Item.SK)}#bare-${replay}` } } };
    }),
  );
}

export async function measureOverhead(operations: PairedOperation[], iterations: number): Promise<OverheadResult[]> {
  const results: OverheadResult[] = [];
  for (const operation of operations) {
    const handlerMs: number[] = [];
    const bareMs: number[] = [];
    for (let index = 0; index < iterations; index++) {
      // Alternate which side goes first, so neither always follows the other's garbage.
      for (const side of index % 2 === 0 ? (['handler', 'bare'] as const) : (['bare', 'handler'] as const)) {
        (side === 'handler' ? handlerMs : bareMs).push(await operation[side]());
      }
    }
    const handlerP50 = median(handlerMs) * 1000;
    const bareP50 = median(bareMs) * 1000;
    results.push({ operation: operation.id, handlerP50Us: Math.round(handlerP50), bareP50Us: Math.round(bareP50), ratio: ratio(handlerP50, bareP50) });
  }
  return results;
}

/** Completed requests per second with `concurrency` requests always in flight for `windowMs`. */
async function opsPerSecond(once: () => Promise<number>, concurrency: number, windowMs: number): Promise<number> {
  const started = performance.now();
  const deadline = started + windowMs;
  let completed = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await once();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return completed / ((performance.now() - started) / 1000);
}

export async function measureThroughput(
  operations: PairedOperation[],
  concurrencies: number[],
  options: { rounds: number; windowMs: number },
): Promise<ThroughputResult[]> {
  const results: ThroughputResult[] = [];
  for (const operation of operations) {
    for (const concurrency of concurrencies) {
      const handler: number[] = [];
      const bare: number[] = [];
      for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
        const pair = { handler: 0, bare: 0 };
        for (const side of shuffled(['handler', 'bare'] as const)) pair[side] = await opsPerSecond(operation[side], concurrency, options.windowMs);
        handler.push(pair.handler);
        bare.push(pair.bare);
      }
      // Adjacent windows share the machine's load of the moment, so they are compared as pairs.
      results.push({
        operation: operation.id,
        handlerOpsPerSec: round(median(handler), 0),
        bareOpsPerSec: round(median(bare), 0),
        ratio: pairedRatio(handler, bare),
        concurrency,
      });
    }
  }
  return results;
}
