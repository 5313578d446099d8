import { describe, expect, it } from 'vitest';
import type { Invocation } from '../../../shared/http/middlewares/invocation';
import { idempotentIn } from '../../../shared/http/middlewares/idempotency';
import { testContext } from '../../support/unit-context';
import { answer, proxyEvent } from './pipeline';

/**
 * What needs no table. Replays, the 422 for a reused key and concurrent repeats run against
 * DynamoDB Local in test/integration/idempotency.test.ts.
 */
const app = testContext({ database: () => ({ client: undefined as never, tableName: 'never read' }) });
const writes = async (_event: unknown, context: Invocation) => ({ writes: (context.remember?.({}) ?? []).length });

describe('idempotency middleware', () => {
  it('answers 400 VALIDATION_FAILED for a malformed Idempotency-Key, before any read', async () => {
    const result = await answer([idempotentIn('test')(app)], writes)(proxyEvent({ headers: { 'Idempotency-Key': 'has spaces' } }));
    expect(result).toMatchObject({
      status: 400,
      body: { error: 'VALIDATION_FAILED', details: [{ path: 'header.Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }] },
    });
  });

  it('without the header, lets the operation run with nothing to remember', async () => {
    const result = await answer([idempotentIn('test')(app)], writes)(proxyEvent());
    expect(result).toMatchObject({ status: 200, body: { writes: 0 } });
  });

  it('answers 401 for a key without a caller', async () => {
    const result = await answer([idempotentIn('test')(app)], writes)(proxyEvent({ headers: { 'Idempotency-Key': 'key-1' } }));
    expect(result).toMatchObject({ status: 401, body: { error: 'UNAUTHORIZED' } });
  });
});
