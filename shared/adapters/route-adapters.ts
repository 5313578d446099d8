import type { ContextDeps } from '../context';
import type { RouteDefinition } from '../routes';
// Subpath imports of package.json: the modules named there, unless the bundler is given a route's
// condition (below) that maps one to shared/adapters/not-bundled.ts.
import { awsCodeSender } from '#adapters/code-sender';
import { secretsManagerSource } from '#adapters/secrets';
import { database } from '#adapters/table';
import { speechProviders } from '#adapters/speech';

/**
 * The AWS adapters a function gets, derived from its route table entry (the one place a route's
 * needs are declared): the DynamoDB client where `table` is not `none`, the Secrets Manager
 * source where `secret` (or `speech`, for the speech secret), the SES/SNS sender where `sender`,
 * the speech providers' adapters where `speech`.
 *
 * A function must not bundle a client it never uses (openapi.json no DynamoDB client, only the
 * code-sending functions SES and SNS). The stack and the benchmarks bundle each function with the
 * conditions of its route (`routeConditions`, infra/bundling/options.ts), under which the
 * adapters it lacks resolve to `undefined` and their modules are never read. Unbundled (the local
 * server, tests) every import resolves to its adapter and the route entry alone decides.
 *
 * Conditions rather than `define` and dead branches: @aws-sdk/lib-dynamodb does not declare
 * itself free of side effects, so esbuild keeps a static import of it even where no code calls it
 * (openapi.json measured 279 KB with the DynamoDB client, 76 KB without).
 */
export function routeAdapters(route: Pick<RouteDefinition, 'table' | 'secret' | 'sender' | 'speech'>): Pick<ContextDeps, 'database' | 'secrets' | 'codeSender' | 'speech'> {
  return {
    database: route.table !== 'none' ? database : undefined,
    // The speech functions read the speech secret (the providers' keys) through the same source.
    secrets: route.secret || route.speech ? secretsManagerSource : undefined,
    codeSender: route.sender ? awsCodeSender : undefined,
    speech: route.speech ? speechProviders : undefined,
  };
}
