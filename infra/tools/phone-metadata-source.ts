import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The metadata libphonenumber-js/min would bundle (its smallest set: enough to tell valid numbers
 * and write them in E.164), read from the installed package, so that the packed copy the functions
 * carry (shared/identity/phone-metadata-data.ts) is always the installed version's.
 */
const require = createRequire(import.meta.url);

export const PHONE_METADATA_MODULE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'identity', 'phone-metadata-data.ts');

export const libphonenumberVersion = (): string => (require('libphonenumber-js/package.json') as { version: string }).version;

/** The installed metadata.min.json, minified. */
export const phoneMetadataText = (): string =>
  JSON.stringify(JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.min.json'), 'utf8')));
