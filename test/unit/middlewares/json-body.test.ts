import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../../shared/http/middlewares/json-body';
import { MAX_BODY_BYTES } from '../../../shared/http/request';
import { answer, proxyEvent } from './pipeline';

const json = { 'Content-Type': 'application/json' };

describe('json-body middleware', () => {
  it('hands the parsed body on', async () => {
    const result = await answer([jsonBody()])(proxyEvent({ body: '{"name":"Ada"}', headers: json }));
    expect(result).toMatchObject({ status: 200, body: { body: { name: 'Ada' } } });
  });

  it('answers 400 INVALID_JSON for a body that is not JSON, or not sent as JSON', async () => {
    const call = answer([jsonBody()]);
    expect(await call(proxyEvent({ body: '{"name":', headers: json }))).toMatchObject({
      status: 400,
      body: { code: 400, error: 'INVALID_JSON', message: 'The request body is not valid JSON.' },
    });
    expect(await call(proxyEvent({ body: '{"name":"Ada"}', headers: { 'Content-Type': 'text/plain' } }))).toMatchObject({
      status: 400,
      body: { code: 400, error: 'INVALID_JSON', message: 'The request body must be JSON, sent with Content-Type: application/json.' },
    });
  });

  it('answers 413 past the size limit, before parsing', async () => {
    const result = await answer([jsonBody()])(proxyEvent({ body: `"${'a'.repeat(MAX_BODY_BYTES)}"`, headers: json }));
    expect(result).toMatchObject({ status: 413, body: { code: 413, error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('with `optional`, lets a missing body through, but not a malformed one', async () => {
    const call = answer([jsonBody({ optional: true })]);
    expect(await call(proxyEvent({ body: null }))).toMatchObject({ status: 200, body: { body: null } });
    expect(await call(proxyEvent({ body: '' }))).toMatchObject({ status: 200, body: { body: null } });
    expect((await call(proxyEvent({ body: 'nope', headers: json }))).status).toBe(400);
  });
});
