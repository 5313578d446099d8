import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backfillChangeFeed } from '../../shared/db/feed-backfill';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../../shared/db/table';

/**
 * `npm run backfill:feed -- --table NAME [--region REGION] [--profile NAME] [--segments N] [--endpoint URL]`:
 * gives every record saved before the change feed its feed entry (shared/db/feed-backfill.ts), once
 * per stage after the feed is deployed (docs/sync.md). On AWS with the standard credential chain
 * (`--profile`, the environment, SSO) and the table's name from the stack's outputs; `--endpoint`
 * for DynamoDB Local. Safe to run again and while the service runs.
 */
export async function main(args: string[]): Promise<number> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const table = option('--table');
  if (!table) {
    console.error('usage: npm run backfill:feed -- --table NAME [--region REGION] [--profile NAME] [--segments N] [--endpoint URL]');
    return 2;
  }
  const endpoint = option('--endpoint');
  const profile = option('--profile');
  if (profile) process.env.AWS_PROFILE = profile;
  const client = new DynamoDBClient({
    ...(option('--region') ? { region: option('--region') } : endpoint ? { region: 'us-east-1' } : {}),
    ...(endpoint ? { endpoint, credentials: LOCAL_DYNAMODB_CREDENTIALS } : {}),
  });
  const db = { client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), tableName: table };
  const result = await backfillChangeFeed(db, {
    segments: Number(option('--segments') ?? 4),
    onProgress: (done) => console.error(`${done.adopted} adopted, ${done.skipped} skipped so far`),
  });
  console.log(`${result.adopted} records given their feed entry, ${result.skipped} left alone (changed, deleted or their account gone meanwhile).`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
