import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { HandlerOptions, InitializeMiddleware, MetadataBearer, Priority } from '@smithy/types';

/**
 * What DynamoDB bills for the requests of a piece of work: requests, read and write units. The
 * service's own client gets one middleware that asks every command for
 * `ReturnConsumedCapacity: TOTAL` and adds up what comes back, so no repository has to change and
 * nothing is counted by hand. DynamoDB Local answers with the same units as DynamoDB (a
 * transactional write of an item under 1 KB: 2 units; a strongly consistent read under 4 KB: 1).
 */
export interface DynamoUsage {
  requests: number;
  readUnits: number;
  writeUnits: number;
  /**
   * The write units again, with every transaction counted at no less than DynamoDB bills it:
   * two units per item written or checked. DynamoDB Local reports a transaction as two units per
   * KB of all its items together (three small Puts: 2 units; DynamoDB bills 6), so
   * `writeUnits` understates multi-item transactions; this is the floor of what AWS would bill.
   */
  writeUnitsPerItemFloor: number;
  /** Command names in the order they were sent (`GetCommand`, `TransactWriteCommand` ...). */
  commands: string[];
}

export const emptyUsage = (): DynamoUsage => ({ requests: 0, readUnits: 0, writeUnits: 0, writeUnitsPerItemFloor: 0, commands: [] });

const READS = /^(Get|BatchGet|Query|Scan|TransactGet)/;

/**
 * The read and write units of one response. With `TOTAL`, DynamoDB reports `CapacityUnits` and,
 * for most commands, the read and write split too; where it gives only the total, the command
 * says which kind it was. Transactions and batches answer with one entry per table.
 */
export function unitsOf(commandName: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): { readUnits: number; writeUnits: number } {
  const entries = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
  let readUnits = 0;
  let writeUnits = 0;
  for (const entry of entries) {
    if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
      readUnits += entry.ReadCapacityUnits ?? 0;
      writeUnits += entry.WriteCapacityUnits ?? 0;
    } else if (READS.test(commandName)) {
      readUnits += entry.CapacityUnits ?? 0;
    } else {
      writeUnits += entry.CapacityUnits ?? 0;
    }
  }
  return { readUnits, writeUnits };
}

/** Adds `from` into `into` (commands appended). */
export function addUsage(into: DynamoUsage, from: DynamoUsage): DynamoUsage {
  into.requests += from.requests;
  into.readUnits += from.readUnits;
  into.writeUnits += from.writeUnits;
  into.writeUnitsPerItemFloor += from.writeUnitsPerItemFloor;
  into.commands.push(...from.commands);
  return into;
}

/**
 * The middleware, for `client.middlewareStack.add(...)`. In the initialize step, before the
 * document client marshalls: `ReturnConsumedCapacity` is a plain top-level parameter, the same
 * in both shapes. A command that fails (a refused condition) is counted as a request; DynamoDB
 * bills its units too, but does not report them in the error, so they are not added.
 */
export function consumedCapacityMiddleware(usage: () => DynamoUsage | undefined): [InitializeMiddleware<object, MetadataBearer>, HandlerOptions & { step: 'initialize'; priority: Priority }] {
  return [
    (next, context) => async (args) => {
      const current = usage();
      if (!current) return next(args);
      const commandName = String(context.commandName ?? 'UnknownCommand');
      current.requests++;
      current.commands.push(commandName);
      const result = await next({ ...args, input: { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' } });
      const units = unitsOf(commandName, (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity);
      current.readUnits += units.readUnits;
      current.writeUnits += units.writeUnits;
      const transactItems = /^TransactWrite/.test(commandName) ? ((args.input as { TransactItems?: unknown[] }).TransactItems?.length ?? 0) : 0;
      current.writeUnitsPerItemFloor += Math.max(units.writeUnits, 2 * transactItems);
      return result;
    },
    { step: 'initialize', name: 'costConsumedCapacity', priority: 'low' },
  ];
}
