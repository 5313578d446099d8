import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * The files that take longest (seconds of CPU on this 2-core machine, measured as
 * docs/contributing.md#running-the-tests says), started first and longest first: with two workers
 * a long file started last would run on alone at the end. vitest's own order (the durations it
 * cached in a previous run, else the file size) follows for every other file. A file missing here
 * costs time, never a check; a name that no longer exists is ignored.
 */
export const LONGEST_FIRST = [
  // Its first `cdk synth` builds every bundle and keeps them (infra/bundling/bundle-cache.ts); the
  // deployed bundles' suite, started beside it, would build them all a second time at once: a file
  // without bundles goes between them.
  'test/infra/cli-synth.test.ts',
  'test/integration/account-deletion-bounded.test.ts',
  'test/integration/openapi-conformance-deployed.test.ts',
  'test/infra/stack.test.ts',
  'test/integration/new-endpoint-like.test.ts',
  'test/integration/openapi-exactness.test.ts',
  'test/unit/static-checks.test.ts',
  'test/unit/static-checks-client-lint.test.ts',
  'test/integration/capacity-budget.test.ts',
  'test/unit/bundles.test.ts',
  'test/infra/nag.test.ts',
  'test/infra/stages.test.ts',
  'test/integration/read-cost.test.ts',
  'test/integration/openapi-conformance.test.ts',
  'test/integration/response-contract.test.ts',
  'test/integration/dynamodb-local-restart.test.ts',
  'test/integration/local-server-watch.test.ts',
  'test/integration/property-based.test.ts',
  'test/integration/new-endpoint-scaffold.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
