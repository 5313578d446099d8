import type { RouteDefinition } from '../../shared/routes';

/**
 * The operations test/integration/openapi-exactness.test.ts does not sample from the document, and
 * the file that holds each to its rules instead: the passkey area (functions/passkeys/), by whole
 * WebAuthn ceremonies with a software authenticator (test/integration/passkeys.test.ts). A
 * credential drawn from the document's shape is refused by the ceremony, not by the schema, and the
 * sampler does not draw a WebAuthn response's open schema (propertyNames, additionalProperties).
 *
 * Kept honest by the coverage check (test/support/route-coverage.ts, place "exactness"): each
 * operation left out here must be requested by the file named for it.
 */
const CEREMONY_AREAS = new Set(['passkeys']);

/** The test file that holds the route to its rules instead of openapi-exactness, or undefined when openapi-exactness samples it. */
export function sampledElsewhere(route: RouteDefinition): string | undefined {
  const area = route.entry.replace(/^functions\//, '').split('/')[0]!;
  return CEREMONY_AREAS.has(area) ? `test/integration/${area}.test.ts` : undefined;
}
