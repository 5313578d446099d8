import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { docsSiteFiles } from './docs-site';
import { GENERATED_DOCUMENT } from './openapi';
import type { OpenApiDocument } from './openapi';
import { PROJECT_ROOT } from '../project-root';

/**
 * `npm run build:docs [-- --out <folder>] [-- --api-url <url>]`: the API reference as a static
 * folder (index.html, Swagger UI's assets, openapi.json) to host on any static web server, an S3
 * bucket behind CloudFront, say. `--api-url` (or API_URL) is the API's base URL, the stack's
 * `ApiUrl` output (`https://<id>.execute-api.<region>.amazonaws.com/<stage>/`): the reference's
 * "Try it out" then calls it. Without it, it calls http://localhost:8080 (npm start).
 */
export const DEFAULT_DOCS_FOLDER = join(PROJECT_ROOT, 'dist', 'docs');
export const DEFAULT_API_URL = 'http://localhost:8080/';

/** The committed document with absolute servers: a hosted reference is not served by the API. */
export function documentFor(apiUrl: string): OpenApiDocument {
  const document = JSON.parse(readFileSync(GENERATED_DOCUMENT, 'utf8')) as OpenApiDocument;
  const base = new URL(apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  return {
    ...document,
    servers: document.servers.map((server) => ({
      ...server,
      // The relative servers resolve against <base>/api/openapi.json, where the API serves the document.
      url: new URL(server.url, new URL('api/openapi.json', base)).href.replace(/\/$/, ''),
    })),
  };
}

export function buildDocs(folder: string, apiUrl: string): string[] {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const written: string[] = [];
  for (const [name, file] of docsSiteFiles('openapi.json')) {
    writeFileSync(join(folder, name), file.body);
    written.push(name);
  }
  writeFileSync(join(folder, 'openapi.json'), `${JSON.stringify(documentFor(apiUrl), null, 2)}\n`);
  return [...written, 'openapi.json'];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'api-url': { type: 'string' } } });
  const folder = resolve(values.out ?? DEFAULT_DOCS_FOLDER);
  const apiUrl = values['api-url'] ?? process.env.API_URL ?? DEFAULT_API_URL;
  const files = buildDocs(folder, apiUrl);
  console.log(`wrote the API reference to ${folder} (${files.join(', ')}), calling ${apiUrl}`);
}
