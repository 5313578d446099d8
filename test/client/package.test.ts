import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { standaloneBundle } from '../../client/scripts/build';
import { DOCUMENT_PATH, GENERATED_FOLDER, renderClientFiles } from '../../client/scripts/generate-types';
import { PROJECT_ROOT } from '../../infra/project-root';

/**
 * The client as a package: its generated types match the committed document, its size, its shape.
 * 14 KB since the speech sessions (issue 44: 12 040 bytes before, 13 302 with them); 12 KB before.
 */
const SIZE_BUDGET_BYTES = 14 * 1024;

describe('the client package', () => {
  it('has types generated from the committed OpenAPI document (npm run generate:openapi regenerates them)', async () => {
    const expected = await renderClientFiles(readFileSync(DOCUMENT_PATH, 'utf8'));
    for (const [name, text] of Object.entries(expected)) {
      const committed = readFileSync(join(GENERATED_FOLDER, name), 'utf8');
      expect(committed === text, `client/src/generated/${name} is stale: run npm run generate:openapi`).toBe(true);
    }
  }, 60_000);

  it(`is at most ${SIZE_BUDGET_BYTES / 1024} KB minified and gzipped, openapi-fetch included, and uses no Node built-in`, async () => {
    // platform neutral: an import of a Node built-in fails this build.
    const result = await build(standaloneBundle);
    const code = result.outputFiles![0]!.contents;
    const gzipped = gzipSync(code, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(SIZE_BUDGET_BYTES);
  });

  it('is shaped for publishing: ESM with types through exports, a README, openapi-fetch as its dependency', () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'client', 'package.json'), 'utf8'));
    expect(manifest.type).toBe('module');
    expect(manifest.exports['.']).toMatchObject({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(manifest.private).toBeUndefined();
    const root = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(root.workspaces).toContain('client');
    const readme = readFileSync(join(PROJECT_ROOT, 'client', 'README.md'), 'utf8');
    for (const name of ['createClient', 'memoryStorage', 'sendCode', 'verifyCode', 'startAutoRefresh', 'users.summary', 'transcriptions.create', 'transcriptions.save', 'transcriptions.sync', 'pendingProblems', 'onConflict', 'OutboxFullError', 'events.track', 'events.flush', 'ApiError', 'onSignedOut', 'signInWithPasskey', 'passkeys.add', 'navigator.credentials', 'react-native-passkey']) {
      expect(readme).toContain(name);
    }
  });
});
