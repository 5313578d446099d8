import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Stack } from 'aws-cdk-lib';
import type { RouteDefinition, TableAccess, TableAction } from '../../shared/routes';
import { sesIdentityArn } from './service-function';
import type { Construct } from 'constructs';

/** What a function may be given: a route table entry's needs, a job's, or the authorizer's. */
export type Needs = Pick<RouteDefinition, 'table' | 'secret' | 'dynamodb'> & Partial<Pick<RouteDefinition, 'sender' | 'providers' | 'providerSecret' | 'speech'>>;

export interface GrantTargets {
  table: ITable;
  /** Every secondary index of the table: a declared index must be one of them. */
  indexNames: readonly string[];
  secret: ISecret;
  /** Apple's private key and WeChat's app secrets: made only when Apple or WeChat is configured (infra/stack.ts). */
  providerSecret?: ISecret;
  /** The speech providers' keys: made only when Azure, Deepgram or Tencent is offered (infra/stack.ts). */
  speechSecret?: ISecret;
  /** Amazon Transcribe is offered: the speech functions may start its streams. */
  transcribe?: boolean;
  ses?: { fromAddress: string; identities: string[] };
}

/** The actions that only read; a `table: 'read'` entry may declare nothing else. */
const TABLE_READ_ACTIONS: readonly TableAction[] = ['GetItem', 'BatchGetItem', 'Query'];

/**
 * The DynamoDB actions of one function, from its declaration, checked against its coarse `table`
 * access: `none` declares nothing, `read` only reads, anything else must say what it does (a
 * new route without `dynamodb` fails the synthesis rather than getting a broad grant).
 */
export function tableAccessOf(label: string, needs: Pick<Needs, 'table' | 'dynamodb'>, indexNames: readonly string[]): TableAccess {
  const actions = needs.dynamodb?.actions ?? [];
  const indexes = needs.dynamodb?.indexes ?? [];
  const declared = actions.length + indexes.length;
  if (needs.table === 'none') {
    if (declared > 0) throw new Error(`${label}: table 'none' declares DynamoDB access`);
    return { actions: [], indexes: [] };
  }
  if (declared === 0) throw new Error(`${label}: declare the DynamoDB actions it issues (dynamodb in shared/routes.ts)`);
  if (needs.table === 'read') {
    const writes = actions.filter((action) => !TABLE_READ_ACTIONS.includes(action));
    if (writes.length > 0) throw new Error(`${label}: read-only table access declares ${writes.join(', ')}`);
  }
  if (new Set(actions).size !== actions.length) throw new Error(`${label}: an action is declared twice`);
  for (const index of indexes) if (!indexNames.includes(index)) throw new Error(`${label}: the table has no index ${index}`);
  return { actions, indexes };
}

export const SECRET_READ_ACTIONS = ['secretsmanager:GetSecretValue'] as const;
/**
 * The code sender calls SendEmail only (shared/adapters/aws-code-sender.ts): SendRawEmail would let
 * a stolen role send arbitrary MIME (attachments, any headers) from the service's address.
 */
export const EMAIL_ACTIONS = ['ses:SendEmail'] as const;
export const SMS_ACTIONS = ['sns:Publish'] as const;
/** What a presigned Amazon Transcribe streaming address needs of the role that signed it. */
export const TRANSCRIBE_STREAM_ACTIONS = ['transcribe:StartStreamTranscriptionWebSocket'] as const;

/** The reason recorded for cdk-nag when a speech function's role holds the Transcribe stream action on `*`. */
export const TRANSCRIBE_WILDCARD_REASON = 'transcribe:StartStreamTranscriptionWebSocket supports no resource-level permissions; only the speech functions hold it (docs/speech.md)';

/** The reason recorded for cdk-nag when a sender's role holds `sns:Publish` on `*`. */
export const SMS_WILDCARD_REASON =
  'sns:Publish to a phone number has no resource ARN, so it can only be allowed on *; an explicit Deny on every SNS ARN (topics, endpoints) leaves direct SMS as the only thing it allows';

/**
 * Grants one function exactly what its route table entry declares, and nothing it does not: the
 * DynamoDB actions it issues on the table and the indexes it queries, sending only with `sender`,
 * the root secret only with `secret`, the provider secret only with `providerSecret`, the speech
 * secret and Transcribe's streams only with `speech`.
 */
export function grantNeeds(scope: Construct, label: string, grantee: IGrantable, needs: Needs, targets: GrantTargets): void {
  const add = (statement: PolicyStatement) => grantee.grantPrincipal.addToPrincipalPolicy(statement);

  const access = tableAccessOf(label, needs, targets.indexNames);
  const tableArn = targets.table.tableArn;
  // Transactions need no action of their own: DynamoDB authorises each item with its item action.
  if (access.actions.length > 0) add(new PolicyStatement({ actions: access.actions.map((action) => `dynamodb:${action}`), resources: [tableArn] }));
  const indexes = access.indexes ?? [];
  if (indexes.length > 0) {
    add(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes.map((index) => `${tableArn}/index/${index}`) }));
  }

  if (needs.secret) add(new PolicyStatement({ actions: [...SECRET_READ_ACTIONS], resources: [targets.secret.secretArn] }));
  if (needs.providerSecret && !needs.providers) throw new Error(`${label}: providerSecret without providers`);
  if (needs.providerSecret && targets.providerSecret) add(new PolicyStatement({ actions: [...SECRET_READ_ACTIONS], resources: [targets.providerSecret.secretArn] }));
  // Speech (docs/speech.md): the speech secret, and Transcribe's streams, whose presigned addresses
  // the function's own role signs (the app's stream is authorised as this role).
  if (needs.speech && targets.speechSecret) add(new PolicyStatement({ actions: [...SECRET_READ_ACTIONS], resources: [targets.speechSecret.secretArn] }));
  if (needs.speech && targets.transcribe) add(new PolicyStatement({ actions: [...TRANSCRIBE_STREAM_ACTIONS], resources: ['*'] }));

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

/** The writes that could change or remove an item; the audit trail's items take none of them. */
export const AUDIT_PROTECTED_ACTIONS = ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;

/**
 * The admin functions' audit trail is append-only (issue 37): their roles may never update or
 * delete an item whose partition key is `AUDIT#...`, whatever else they may write. An explicit
 * Deny on the leading key, which no Allow can override; each entry itself is a put conditioned
 * on a new key (shared/db/audit-repository.ts).
 */
export function protectAuditTrail(grantee: IGrantable, tableArn: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: [...AUDIT_PROTECTED_ACTIONS],
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } },
    }),
  );
}
