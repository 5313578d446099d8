import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesSection } from '../../infra/tools/docs-figures';
import { readSection } from '../../infra/tools/docs-sections';
import { alarmIds, stackCounts, synthesizeProdTemplates } from '../../infra/tools/docs-stack';
import type { SynthesizedTemplates } from '../../infra/tools/docs-stack';
import { readDocument } from '../support/markdown';

/**
 * Issue 27: the documents' figures of the synthesized stack. The resource count in
 * docs/architecture.md is the synthesized one (npm run docs:generate writes it), and every alarm
 * of the stack has its runbook row in docs/operating.md.
 */
let synthesized: SynthesizedTemplates;
// In a hook: a first synthesis loads aws-cdk-lib and can take most of a minute on a busy machine.
beforeAll(() => {
  synthesized = synthesizeProdTemplates();
});
const synthesizedOnce = () => synthesized;

describe('the stack as the documents describe it', () => {
  it('has the resource count docs/architecture.md quotes', () => {
    expect(readSection('docs/architecture.md', 'resources'), 'stale: run npm run docs:generate').toBe(resourcesSection(stackCounts(synthesizedOnce())));
  });

  it('has a runbook row in docs/operating.md for every alarm', () => {
    const alarms = readDocument('docs/operating.md').split(/^## Alarms$/m)[1] ?? '';
    const ids = [...alarms.matchAll(/^\|[^|]+\| `([^`]+)` \|/gm)].map((row) => row[1]!);
    expect(ids.length).toBeGreaterThan(5);
    // A logical id is the construct path without separators plus an 8-hex hash: `OperationsServerErrorRateF1DAA999`.
    const rowOf = (logicalId: string) => {
      const path = logicalId.replace(/[0-9A-F]{8}$/, '');
      return ids.find((id) => (id.startsWith('<') ? path.endsWith(id.replace(/^<\w+>/, '')) : path.endsWith(id)));
    };
    const found = alarmIds(synthesizedOnce());
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter((id) => !rowOf(id))).toEqual([]);
  });
});
