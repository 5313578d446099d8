import type { AwsCredentialIdentity } from '@aws-sdk/types';

/**
 * Replaces `@aws-sdk/credential-provider-node` in Lambda bundles (an esbuild alias, see
 * infra/bundling/options.ts). On Lambda the execution role's credentials are always in the
 * environment, which is the first source the SDK's default chain would read anyway; the rest of
 * the chain (SSO, INI files, IMDS, web identity, STS clients) is ~130 KB of bundle and cold start
 * that can never run there.
 */
export const defaultProvider = () => async (): Promise<AwsCredentialIdentity> => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) throw new Error('No AWS credentials in the Lambda environment');
  return { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY, ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}) };
};
