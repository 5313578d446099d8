import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { findRoute, replay, waves } from './harness';
import type { Bench, RecordedCommand } from './harness';
import type { PairedOperation } from './overhead';

/**
 * `POST /api/auth/token/refresh` for the overhead and throughput figures. Unlike a read, every
 * refresh spends its token, so the handler side keeps a pool of sessions (one per request in
 * flight, the highest concurrency measured) and hands each request the pool's next free session
 * with its current token. The bare side sends the same commands a refresh issued (two reads, one
 * conditional update) on a session item of its own, so the handler's chains are never disturbed:
 * its update is conditioned on that item existing rather than on a generation, at the same cost.
 */
export const REFRESH_OPERATION = 'POST /api/auth/token/refresh';

interface PooledSession {
  refreshToken: string;
}

async function signInSessions(bench: Bench, count: number): Promise<PooledSession[]> {
  const sessions: PooledSession[] = [];
  for (let index = 0; index < count; index++) {
    const email = `refresh-bench-${process.pid}-${index}@example.com`;
    await bench.call('POST /api/verify-code/send', { body: { type: 'email', target: email } });
    const code = bench.outbox.list(email)[0]!.code;
    const signedIn = await bench.call<{ refreshToken: string }>('POST /api/verify-code/verify', { body: { target: email, verifyCode: code } });
    sessions.push({ refreshToken: signedIn.refreshToken });
  }
  return sessions;
}

/** The recorded update, pointed at the bare side's own item and conditioned on it existing. */
function onBareItem(command: RecordedCommand, sortKey: string): RecordedCommand {
  if (command.Command !== UpdateCommand) return command;
  const input = structuredClone(command.input) as { Key: Record<string, string>; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> };
  input.Key = { ...input.Key, SK: sortKey };
  input.ConditionExpression = 'attribute_exists(PK)';
  delete input.ExpressionAttributeValues[':current'];
  return { ...command, input };
}

export async function pairRefresh(bench: Bench, poolSize: number): Promise<PairedOperation> {
  const route = findRoute(REFRESH_OPERATION);
  const run = await bench.handler(route);
  const free = await signInSessions(bench, poolSize);
  const handler = async () => {
    const session = free.shift();
    if (!session) throw new Error(`${REFRESH_OPERATION}: more requests in flight than the pool of ${poolSize} sessions`);
    const event = bench.event(route, { body: { refreshToken: session.refreshToken } });
    const context = bench.context(route, event);
    const started = performance.now();
    const result = await run(event, context);
    const duration = performance.now() - started;
    if (result.statusCode !== 200) throw new Error(`${REFRESH_OPERATION} answered ${result.statusCode}: ${result.body}`);
    session.refreshToken = (JSON.parse(result.body) as { refreshToken: string }).refreshToken;
    free.push(session);
    return duration;
  };
  for (let index = 0; index < 10; index++) await handler();
  const commands = await bench.record(handler);
  const update = commands.find((command) => command.Command === UpdateCommand);
  if (!update) throw new Error(`${REFRESH_OPERATION} issued no update`);
  const bareSortKey = 'SESSION#bench-bare';
  const { Key } = update.input as { Key: Record<string, string> };
  await bench.bare.send(new PutCommand({ TableName: bench.config.TABLE_NAME, Item: { ...Key, SK: bareSortKey, generation: 0 } }));
  const plan = waves(commands.map((command) => onBareItem(command, bareSortKey)));
  const bare = async () => {
    const started = performance.now();
    await replay(bench.bare, plan);
    return performance.now() - started;
  };
  for (let index = 0; index < 10; index++) await bare();
  return { id: REFRESH_OPERATION, commands, handler, bare };
}
