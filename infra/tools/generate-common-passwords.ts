import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root';
import { commonPasswordList } from './common-passwords-source';

/**
 * `npm run generate:passwords`: rewrites shared/identity/common-passwords.json from the package:
 * data as data, one JSON string holding the passwords one per line. JSON, because every tool that
 * loads our code reads it as it is (esbuild, tsx, vitest, tsc), with no loader of our own; one
 * string rather than an array, because the minified bundle then holds the list as one template
 * literal (the same bytes as the list itself, where an array adds 20 KB of quotes and commas) and
 * imports it far faster than an array literal of 10 000 elements. The dictionary's own module is
 * 380 KB; the list is 91 KB.
 */
const target = join(PROJECT_ROOT, 'shared', 'identity', 'common-passwords.json');
writeFileSync(target, `${JSON.stringify(commonPasswordList().join('\n'))}\n`);
console.log(`wrote ${target}`);
