import { describe, expect, it } from 'vitest';
import { PROJECT_TOOL_TIMEOUT_MS, runProjectTool } from '../support/project-tool';

/** The app client's typecheck (as an app compiles it: DOM, no Node) and the lint: the other half of test/unit/static-checks.test.ts. */
describe('the sources', () => {
  it('typecheck: the app client as an app compiles it (tsc --noEmit -p client)', { timeout: PROJECT_TOOL_TIMEOUT_MS }, async () => {
    const { code, output } = await runProjectTool('tsc', ['--noEmit', '-p', 'client']);
    expect(output.trim(), 'tsc --noEmit -p client').toBe('');
    expect(code).toBe(0);
  });

  it('lint: eslint .', { timeout: PROJECT_TOOL_TIMEOUT_MS }, async () => {
    const { code, output } = await runProjectTool('eslint', ['.']);
    expect(output.trim(), 'eslint .').toBe('');
    expect(code).toBe(0);
  });
});
