import { codeSections, resourcesSection } from './docs-figures';
import { writeSections } from './docs-sections';
import { stackCounts, synthesizeProdTemplates } from './docs-stack';

/**
 * `npm run docs:generate [-- --no-synth]`: rewrites the generated sections of README.md and docs/
 * that the code determines (the operations list, function count, job schedules) and, unless
 * `--no-synth`, the stack's resource count from a synthesis without bundling (under a minute).
 * Run it after adding a route or a job; npm test fails while a section is stale.
 */
const sections = codeSections();
if (!process.argv.includes('--no-synth')) {
  process.stderr.write('synthesizing the prod stack without bundling to count its resources...\n');
  sections['docs/architecture.md'] = { ...sections['docs/architecture.md'], resources: resourcesSection(stackCounts(synthesizeProdTemplates())) };
}
for (const [file, contents] of Object.entries(sections)) {
  const changed = writeSections(file, contents);
  process.stdout.write(`${changed ? 'rewrote' : 'unchanged'} ${file} (${Object.keys(contents).join(', ')})\n`);
}
