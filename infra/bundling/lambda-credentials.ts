/**
 * Replaces `@aws-sdk/credential-provider-node` in Lambda bundles (an esbuild alias, see
 * infra/bundling/options.ts) with the SDK's own environment provider, the first link of the
 * default chain. On Lambda the execution role's credentials are always in the environment; the
 * rest of the chain (SSO, INI files, IMDS, web identity, and the STS and SSO clients they bring)
 * can never run there and would add 132 KB to every function (measured: the DynamoDB client's
 * bundle is 191 KB with this, 323 KB without), past the 300 KB function goal.
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
