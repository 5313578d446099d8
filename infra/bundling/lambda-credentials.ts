import { credentialsFromEnvironment } from '../../shared/adapters/environment-credentials';

/**
 * Replaces `@aws-sdk/credential-provider-node` in Lambda bundles (an esbuild alias, see
 * infra/bundling/options.ts). On Lambda the execution role's credentials are always in the
 * environment, which is the first source the SDK's default chain would read anyway; the rest of
 * the chain (SSO, INI files, IMDS, web identity, STS clients) is ~130 KB of bundle and cold start
 * that can never run there.
 */
export const defaultProvider = () => async () => credentialsFromEnvironment();
