import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../../shared/http/middlewares/json-body';
import { validation } from '../../../shared/http/middlewares/validation';
import { answer, proxyEvent } from './pipeline';

const schemas = {
  body: z.object({ name: z.string().check(z.minLength(1)), age: z.number() }),
  query: z.object({ days: z.optional(z.pipe(z.string(), z.transform(Number))) }),
  params: z.object({ id: z.string().check(z.regex(/^\d+$/)) }),
};
const json = { 'Content-Type': 'application/json' };
const echo = async (_event: unknown, context: { body?: unknown; query?: unknown; params?: unknown }) => ({
  body: context.body,
  query: context.query,
  params: context.params,
});

describe('validation middleware', () => {
  it('hands on what the schemas output', async () => {
    const result = await answer([jsonBody(), validation(schemas)], echo)(
      proxyEvent({ body: '{"name":"Ada","age":36,"extra":true}', headers: json, queryStringParameters: { days: '7' }, pathParameters: { id: '12' } }),
    );
    expect(result).toMatchObject({ status: 200, body: { body: { name: 'Ada', age: 36 }, query: { days: 7 }, params: { id: '12' } } });
    expect(result.body.body).not.toHaveProperty('extra');
  });

  it('answers 400 VALIDATION_FAILED listing every problem of the body', async () => {
    const result = await answer([jsonBody(), validation(schemas)], echo)(
      proxyEvent({ body: '{"name":"","age":"old"}', headers: json, pathParameters: { id: '12' } }),
    );
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ code: 400, error: 'VALIDATION_FAILED', message: expect.stringMatching(/^Invalid request: body\.name /) });
    expect(result.body.details.map((detail: { path: string }) => detail.path)).toEqual(['body.name', 'body.age']);
  });

  it('names the path parameter that is wrong', async () => {
    const result = await answer([validation({ params: schemas.params })], echo)(proxyEvent({ pathParameters: { id: 'abc' } }));
    expect(result).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', details: [{ path: 'path.id' }] } });
  });
});
