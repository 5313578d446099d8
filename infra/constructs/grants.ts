import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Stack } from 'aws-cdk-lib';
import type { RouteDefinition } from '../../shared/routes';
import { sesIdentityArn } from './service-function';
import type { Construct } from 'constructs';

/** What a function may be given: a route table entry's needs, or the authorizer's. */
export type Needs = Pick<RouteDefinition, 'table' | 'secret'> & Partial<Pick<RouteDefinition, 'sender'>>;

export interface GrantTargets {
  table: ITable;
  /** Every secondary index of the table: queries name them in their ARN. */
  indexNames: readonly string[];
  secret: ISecret;
  ses?: { fromAddress: string; identities: string[] };
}

/**
 * The exact DynamoDB actions of the code's access patterns. No Scan: single-table access is by key
 * or by query; no DescribeTable: nothing reads table metadata. Transactions are authorised per
 * item with these same actions (TransactWriteItems needs Put/Update/Delete/ConditionCheckItem).
 */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const;
export const SECRET_READ_ACTIONS = ['secretsmanager:GetSecretValue'] as const;
export const EMAIL_ACTIONS = ['ses:SendEmail', 'ses:SendRawEmail'] as const;
export const SMS_ACTIONS = ['sns:Publish'] as const;

/** The reason recorded for cdk-nag when a sender's role holds `sns:Publish` on `*`. */
export const SMS_WILDCARD_REASON =
  'sns:Publish to a phone number has no resource ARN, so it can only be allowed on *; an explicit Deny on every SNS ARN (topics, endpoints) leaves direct SMS as the only thing it allows';

/**
 * Grants one function exactly what its route table entry declares, and nothing it does not: a
 * read-only route cannot write, a route without `sender` cannot send, one without `secret`
 * cannot read the root secret.
 */
export function grantNeeds(scope: Construct, grantee: IGrantable, needs: Needs, targets: GrantTargets): void {
  const add = (statement: PolicyStatement) => grantee.grantPrincipal.addToPrincipalPolicy(statement);

  if (needs.table !== 'none') {
    const tableArn = targets.table.tableArn;
    add(
      new PolicyStatement({
        actions: [...TABLE_READ_ACTIONS],
        resources: [tableArn, ...targets.indexNames.map((name) => `${tableArn}/index/${name}`)],
      }),
    );
    if (needs.table === 'read-write') add(new PolicyStatement({ actions: [...TABLE_WRITE_ACTIONS], resources: [tableArn] }));
  }

  if (needs.secret) add(new PolicyStatement({ actions: [...SECRET_READ_ACTIONS], resources: [targets.secret.secretArn] }));

  if (needs.sender) {
    if (targets.ses) {
      add(
        new PolicyStatement({
          actions: [...EMAIL_ACTIONS],
          resources: targets.ses.identities.map((identity) => sesIdentityArn(scope, identity)),
          // The identity may be a whole domain: only the configured address may appear as From.
          conditions: { StringEquals: { 'ses:FromAddress': targets.ses.fromAddress } },
        }),
      );
    }
    add(new PolicyStatement({ actions: [...SMS_ACTIONS], resources: ['*'] }));
    add(
      new PolicyStatement({
        effect: Effect.DENY,
        actions: [...SMS_ACTIONS],
        resources: [`arn:${Stack.of(scope).partition}:sns:*:*:*`],
      }),
    );
  }
}
