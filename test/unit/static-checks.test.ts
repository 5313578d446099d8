import { describe, expect, it } from 'vitest';
import { PROJECT_TOOL_TIMEOUT_MS, runProjectTool } from '../support/project-tool';

/**
 * `npm run typecheck` and `npm run lint` as files of `npm test`: here they take a worker's turn
 * beside the other files instead of holding up the whole run before its first test (~30 s of
 * wall time on two cores, docs/contributing.md). An error fails with the tool's own output. The
 * service's typecheck is this file; the client's and the lint are
 * test/unit/static-checks-client-lint.test.ts, so that both workers can take one.
 */
describe('the sources', () => {
  it('typecheck: the service, its tools and its tests (tsc --noEmit)', { timeout: PROJECT_TOOL_TIMEOUT_MS }, async () => {
    const { code, output } = await runProjectTool('tsc', ['--noEmit']);
    expect(output.trim(), 'tsc --noEmit').toBe('');
    expect(code).toBe(0);
  });
});
