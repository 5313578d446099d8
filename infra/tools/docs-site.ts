import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The API reference page: Swagger UI (from the swagger-ui-dist package, nothing from a CDN, no
 * validator badge calling out) rendering the OpenAPI document. The local server serves these files
 * at /docs/ (with the document at /api/openapi.json); `npm run build:docs` writes them, with a copy
 * of the document, as a static folder to host anywhere.
 */
export interface DocsFile {
  contentType: string;
  body: Buffer;
}

export const DOCS_TITLE = 'Captioning account service: API reference';

const SWAGGER_UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page's own headers: scripts and styles from itself only, requests to its own origin only. */
export const DOCS_SECURITY_HEADERS: Record<string, string> = {
  // Swagger UI sets style attributes, and its icons are data: URIs.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

const swaggerUiFolder = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const indexHtml = (specUrl: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${DOCS_TITLE}</title>
    <link rel="stylesheet" href="./swagger-ui.css" />
    <link rel="stylesheet" href="./docs.css" />
    <link rel="icon" type="image/png" href="./favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <noscript>This reference needs JavaScript; the document itself is <a href="${specUrl}">openapi.json</a>.</noscript>
    <script src="./swagger-ui-bundle.js"></script>
    <script src="./docs.js"></script>
  </body>
</html>
`;

const docsCss = `body { margin: 0; background: #fafafa; }
.swagger-ui .info { margin: 32px 0 24px; }
`;

const initializer = (specUrl: string) => `// Starts Swagger UI on the API's OpenAPI document (written by infra/tools/docs-site.ts).
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(specUrl)},
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis],
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    // Offline, and nothing about this API sent elsewhere: no online validator badge.
    validatorUrl: null,
  });
});
`;

/**
 * The files of the page by name. `specUrl` is where the page loads the document from: the API's
 * own `/api/openapi.json` when the API serves the page, `openapi.json` beside it when hosted.
 */
export function docsSiteFiles(specUrl: string): Map<string, DocsFile> {
  const folder = swaggerUiFolder();
  const files = new Map<string, DocsFile>([
    ['index.html', { contentType: 'text/html; charset=utf-8', body: Buffer.from(indexHtml(specUrl)) }],
    ['docs.js', { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(initializer(specUrl)) }],
    ['docs.css', { contentType: 'text/css; charset=utf-8', body: Buffer.from(docsCss) }],
  ]);
  for (const [name, contentType] of Object.entries(SWAGGER_UI_ASSETS)) files.set(name, { contentType, body: readFileSync(join(folder, name)) });
  return files;
}
