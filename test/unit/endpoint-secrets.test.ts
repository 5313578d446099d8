import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { endpoint } from '../../shared/http/endpoint';
import type { SecretSource } from '../../shared/ports/secrets';
import { testContext } from '../support/unit-context';

/**
 * A context reads the root secret through its adapter once, however many requests and `keys()`
 * calls follow (a request that verifies a code and signs a token asks twice): on Lambda a
 * context lives as long as its container.
 */
describe('the root secret of a context', () => {
  it('is read once per context through the adapter, not once per use', async () => {
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
    const app = testContext({ secrets: countingSecrets });
    const handler = endpoint('POST /api/auth/login', {
      docs: { summary: 'test' },
      run: async (_input, ctx) => {
        const first = await ctx.keys();
        const second = await ctx.keys();
        return { same: first === second };
      },
    }).withContext(app);
    const event = { body: null, headers: {}, requestContext: { requestId: 'r' } } as unknown as APIGatewayProxyEvent;
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
