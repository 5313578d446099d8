import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it, onTestFinished } from 'vitest';
import { endpoint } from '../../shared/http/endpoint';
import type { SecretSource } from '../../shared/ports/secrets';

/**
 * On Lambda no port is overridden: a function reads the root secret through its adapter. It must
 * do so once per container, however many requests and `keys()` calls follow (a request that
 * verifies a code and signs a token asks twice).
 */
describe('the root secret on Lambda', () => {
  it('is read once per container through the adapter, not once per use', async () => {
    process.env.TABLE_NAME = 'accounts';
    process.env.JWT_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:jwt-AbCdEf';
    onTestFinished(() => {
      delete process.env.TABLE_NAME;
      delete process.env.JWT_SECRET_ARN;
    });
    let adaptersBuilt = 0;
    let reads = 0;
    const countingSecrets = (): SecretSource => {
      adaptersBuilt++;
      return {
        rootSecret: async () => {
          reads++;
          return 'a root secret of at least thirty-two characters';
        },
      };
    };
    const handler = endpoint('POST /api/auth/login', {
      docs: { summary: 'test' },
      // Declared as the route needs it; never used here.
      adapters: { secrets: countingSecrets, database: () => { throw new Error('not used'); } },
      run: async (_input, ctx) => {
        const first = await ctx.keys();
        const second = await ctx.keys();
        return { same: first === second };
      },
    });
    const event = { body: '{}', headers: { 'content-type': 'application/json' }, requestContext: { requestId: 'r' } } as unknown as APIGatewayProxyEvent;
    const context = { awsRequestId: 'r' } as Context;

    for (let request = 0; request < 3; request++) {
      const response = await handler(event, context);
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ same: true });
    }
    expect(reads).toBe(1);
    expect(adaptersBuilt).toBe(1);
  });
});
