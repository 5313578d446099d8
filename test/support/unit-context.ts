import { parseConfig } from '../../shared/config';
import { createContext } from '../../shared/context';
import type { ContextDeps } from '../../shared/context';

/** A context of the test's own: silent logs, no AWS port unless a test gives one. */
export const testContext = (deps: Partial<ContextDeps> = {}) =>
  createContext({ config: parseConfig({ TABLE_NAME: 'unit-tests', LOG_LEVEL: 'silent' }), ...deps });
