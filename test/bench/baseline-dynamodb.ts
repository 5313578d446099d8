import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DYNAMODB_MAX_ATTEMPTS } from '../../shared/db/client';

/**
 * The cold-import floor of a DynamoDB function: a bundle that does nothing but create the document
 * client with the service's settings (shared/db/client.ts), built with the same options.
 */
export const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: process.env.AWS_REGION, maxAttempts: DYNAMODB_MAX_ATTEMPTS, retryMode: 'standard' }),
  { marshallOptions: { removeUndefinedValues: true } },
);
