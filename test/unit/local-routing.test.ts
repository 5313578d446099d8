import { describe, expect, it } from 'vitest';
import { matchResource } from '../../infra/local/server';
import { routes, versionedPaths } from '../../shared/routes';

const match = (resources: string[], path: string) => {
  const found = matchResource(resources, path);
  return found && { resource: resources[found.index], values: found.values };
};

describe('local server route matching', () => {
  it('prefers a literal segment to a {parameter} in the same place, as API Gateway does, whatever the table order', () => {
    const table = ['/api/transcriptions/{id}', '/api/devices/{sn}', '/api/transcriptions/usage', '/api/v1/transcriptions/{id}', '/api/v1/transcriptions/usage', '/api/{a}/x/{b}', '/api/{a}/{c}/y'];
    for (const order of [table, [...table].reverse()]) {
      expect(match(order, '/api/transcriptions/usage')).toEqual({ resource: '/api/transcriptions/usage', values: [] });
      expect(match(order, '/api/v1/transcriptions/usage')).toEqual({ resource: '/api/v1/transcriptions/usage', values: [] });
      expect(match(order, '/api/v1/transcriptions/7')).toEqual({ resource: '/api/v1/transcriptions/{id}', values: ['7'] });
      // The first segment where two resources differ decides, not how many literals each has.
      expect(match(order, '/api/q/x/y')).toEqual({ resource: '/api/{a}/x/{b}', values: ['q', 'y'] });
    }
  });

  it('matches whole segments only: no empty parameter, no prefix, no extra segment', () => {
    const table = ['/api/devices/{sn}', '/api/devices'];
    expect(match(table, '/api/devices/')).toBeUndefined();
    expect(match(table, '/api/devices/a/b')).toBeUndefined();
    expect(match(table, '/api/devicesx')).toBeUndefined();
    expect(match(table, '/api/devices')).toEqual({ resource: '/api/devices', values: [] });
  });

  it('resolves every path of the route table, both of each route\'s paths, to that path itself', () => {
    const resources = [...new Set(routes.flatMap((route) => versionedPaths(route.path)))];
    for (const resource of resources) {
      // A parameter filled with a value no literal of the table uses.
      const concrete = resource.replace(/\{\w+\}/g, 'v4lue');
      expect(match(resources, concrete)?.resource, concrete).toBe(resource);
    }
  });
});
