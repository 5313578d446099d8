import { describe, expect, it } from 'vitest';
import { tableAccessOf } from '../../infra/constructs/grants';
import { LIST_INDEX_NAME } from '../../shared/db/table';
import { authorizer, jobs, routeId, routes } from '../../shared/routes';
import type { RouteDefinition } from '../../shared/routes';

const INDEXES = [LIST_INDEX_NAME];

describe('table access declarations (dynamodb in shared/routes.ts)', () => {
  it('hold for every route, job and the authorizer', () => {
    for (const route of routes as readonly RouteDefinition[]) expect(() => tableAccessOf(routeId(route), route, INDEXES)).not.toThrow();
    for (const job of jobs) expect(() => tableAccessOf(job.name, job, INDEXES)).not.toThrow();
    expect(tableAccessOf('authorizer', authorizer, INDEXES).actions).toEqual(['GetItem']);
  });

  it('give search (the records list) and the export nothing beyond GetItem and Query on the table (issue 31)', () => {
    for (const id of ['GET /api/transcriptions', 'GET /api/users/me/export']) {
      const route = (routes as readonly RouteDefinition[]).find((candidate) => routeId(candidate) === id)!;
      expect(tableAccessOf(id, route, INDEXES).actions.filter((action) => action !== 'GetItem' && action !== 'Query'), id).toEqual([]);
    }
  });

  it('stop the synthesis when a route using the table does not say what it does: no broad default grant', () => {
    expect(() => tableAccessOf('POST /api/new', { table: 'read-write' }, INDEXES)).toThrow(/declare the DynamoDB actions/);
    expect(() => tableAccessOf('GET /api/new', { table: 'read', dynamodb: { actions: [] } }, INDEXES)).toThrow(/declare the DynamoDB actions/);
  });

  it('refuse writes on read-only access, access with none, unknown indexes and repeats', () => {
    expect(() => tableAccessOf('GET /x', { table: 'read', dynamodb: { actions: ['GetItem', 'PutItem'] } }, INDEXES)).toThrow(/PutItem/);
    expect(() => tableAccessOf('GET /x', { table: 'none', dynamodb: { actions: ['GetItem'] } }, INDEXES)).toThrow(/none/);
    expect(() => tableAccessOf('GET /x', { table: 'read', dynamodb: { actions: ['GetItem'], indexes: ['Nope'] } }, INDEXES)).toThrow(/Nope/);
    expect(() => tableAccessOf('GET /x', { table: 'read', dynamodb: { actions: ['GetItem', 'GetItem'] } }, INDEXES)).toThrow(/twice/);
    expect(tableAccessOf('GET /x', { table: 'read', dynamodb: { actions: ['GetItem'], indexes: INDEXES } }, INDEXES)).toEqual({ actions: ['GetItem'], indexes: INDEXES });
  });
});
