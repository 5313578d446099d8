import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local';
import { LOCAL_DYNAMODB_CREDENTIALS } from '../../shared/db/table';
import { startLocalApi } from '../support/local-api';
import type { LocalApi } from '../support/local-api';

let api: LocalApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('GET /api/health', () => {
  it('answers 200 when the table can be read', async () => {
    api = await startLocalApi();
    const response = await api.request('GET', '/api/health');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok' });
  });

  it('answers 503 {code, message, error} when DynamoDB does not answer', async () => {
    // The table is created on the run's DynamoDB Local, but the server talks to a closed port.
    api = await startLocalApi({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    const response = await api.request('GET', '/api/health');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    expect(response.body.requestId).toEqual(expect.any(String));
  });

  it('answers 503 when the table is gone', async () => {
    api = await startLocalApi();
    const client = new DynamoDBClient({ endpoint: api.config.DYNAMODB_ENDPOINT, region: 'us-east-1', credentials: LOCAL_DYNAMODB_CREDENTIALS });
    await client.send(new DeleteTableCommand({ TableName: api.config.TABLE_NAME }));
    client.destroy();
    const response = await api.request('GET', '/api/health');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 503, error: 'SERVICE_UNAVAILABLE' });
  });
});
