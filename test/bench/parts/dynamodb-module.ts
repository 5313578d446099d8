// The DynamoDB document client's code loaded, no client created (what a function without a table carries).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const classes = { DynamoDBClient, DynamoDBDocumentClient };
