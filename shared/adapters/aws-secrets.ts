import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config';
import type { SecretSource } from '../ports/secrets';

/** The root secret from Secrets Manager; the stack generates it and passes only its ARN. */
export function secretsManagerSource(cfg: Config): SecretSource {
  const secretId = cfg.JWT_SECRET_ARN;
  if (!secretId) throw new Error('JWT_SECRET_ARN is not set');
  const client = new SecretsManagerClient({ region: cfg.AWS_REGION });
  return {
    async rootSecret() {
      const result = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (!result.SecretString) throw new Error('The root secret has no string value');
      return result.SecretString;
    },
  };
}
