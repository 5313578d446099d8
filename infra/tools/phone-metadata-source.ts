import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root';

// The package's metadata files are reachable through its `exports` map with require.resolve.
const require = createRequire(import.meta.url);

/** Where the functions' packed copy lives: written by `npm run generate:phone-metadata`. */
export const PHONE_METADATA_MODULE = join(PROJECT_ROOT, 'shared', 'identity', 'phone-metadata-data.ts');

export const libphonenumberVersion = (): string => (require('libphonenumber-js/package.json') as { version: string }).version;

/**
 * The metadata libphonenumber-js/min would bundle (its smallest set: enough to tell valid numbers
 * and write them in E.164), read from the installed package and minified, so that the copy the
 * functions carry is always the installed version's.
 */
export const phoneMetadataText = (): string =>
  JSON.stringify(JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.min.json'), 'utf8')));
