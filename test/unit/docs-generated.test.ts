import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeSections } from '../../infra/tools/docs-figures';
import { CHART_FILE, costChart } from '../bench/cost-chart';
import { COST_REPORT_FILE, documentedReport } from '../bench/cost-docs';
import { readPrices, readProfile } from '../bench/cost-data';
import { priceMeasurements, pricedProfile, readMeasurements, runOf } from '../bench/cost-measurements';
import type { DocumentedCostReport } from '../bench/cost-docs';
import { sectionsOf, withSections } from '../../infra/tools/docs-sections';
import { documentFiles, readDocument } from '../support/markdown';

/**
 * Issue 27: the figures the code determines are written into the documents by a script, and a
 * stale one fails here. Run `npm run docs:generate` after adding a route or a job.
 */
describe('generated sections of README.md and docs/', () => {
  for (const [file, sections] of Object.entries(codeSections())) {
    for (const [name, expected] of Object.entries(sections)) {
      it(`${file} "${name}" is what npm run docs:generate writes now`, () => {
        const actual = sectionsOf(readDocument(file)).get(name);
        expect(actual, `${file} has no <!-- generated:${name} --> section`).toBeDefined();
        expect(actual, `${file} "${name}" is stale: run npm run docs:generate`).toBe(expected);
      });
    }
  }

  it('quote a cost report priced with the committed usage profile (else: npm run cost)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const report = JSON.parse(readFileSync(join(root, COST_REPORT_FILE), 'utf8')) as DocumentedCostReport;
    // The profile's own calls and those its captioning implies (the speech routes: withDerivedCalls).
    const profile = pricedProfile(readProfile());
    expect(report.details.callsPerUserPerMonth, 'cost/usage-profile.json changed since the last npm run cost').toEqual(profile.callsPerUserPerMonth);
  });

  it('quote the report that pricing cost/measurements.json with the committed profile and prices gives (else: npm run cost)', () => {
    const measurements = readMeasurements();
    expect(measurements, 'cost/measurements.json: run npm run cost').toBeDefined();
    const report = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', COST_REPORT_FILE), 'utf8')) as DocumentedCostReport;
    const priced = documentedReport(priceMeasurements(measurements!, readPrices(), readProfile()), pricedProfile(readProfile()), measurements!.authorizer, runOf(measurements!));
    expect(report, 'cost/report.json is stale: npm run cost (it measures only what changed)').toEqual(JSON.parse(JSON.stringify(priced)));
  });

  it('show the chart npm run cost draws from the committed report, the live channel among its parts (else: npm run cost)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const report = JSON.parse(readFileSync(join(root, COST_REPORT_FILE), 'utf8')) as DocumentedCostReport;
    const chart = readFileSync(join(root, CHART_FILE), 'utf8');
    expect(chart, `${CHART_FILE} is stale: npm run cost`).toBe(costChart(report, readPrices(), readProfile().name));
    expect(chart).toContain(`live channel: WebSocket messages and minutes, its functions: $${report.details.perThousandMauByComponent.liveChannel.toFixed(2)}`);
  });

  it('close every section they open', () => {
    for (const file of documentFiles()) {
      const text = readDocument(file);
      const opened = [...text.matchAll(/<!-- generated:([\w-]+) -->/g)].map((match) => match[1]).sort();
      const closed = [...text.matchAll(/<!-- \/generated:([\w-]+) -->/g)].map((match) => match[1]).sort();
      expect(closed, file).toEqual(opened);
      expect([...sectionsOf(text).keys()].sort(), file).toEqual(opened);
    }
  });

  it('are replaced in place, and a missing section is an error', () => {
    const text = 'a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb\n';
    expect(withSections(text, { x: 'new' })).toBe('a\n<!-- generated:x -->\nnew\n<!-- /generated:x -->\nb\n');
    expect(sectionsOf(withSections(text, { x: 'new\n' })).get('x')).toBe('new\n');
    expect(() => withSections(text, { y: 'z' })).toThrow(/no generated section y/);
  });
});
