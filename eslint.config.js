import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// The domain folders: what the service does, below the transport (shared/http) that serves it.
const DOMAIN_FOLDERS = ['identity', 'accounts', 'devices', 'transcriptions', 'behavior'];

const classicZod = ['zod', 'zod/v4', 'zod/v4/classic', 'zod/v3'].map((name) => ({
  name,
  // Types cost nothing at run time.
  allowTypeImports: true,
  message:
    "Use `import * as z from 'zod/mini'` (types: 'zod/v4/core'): classic zod adds ~90 KB to the bundle and ~9 ms to the cold import of every function that imports it.",
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'dist/', 'client/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: "Use `import * as z from 'zod'`: the named `z` object defeats tree-shaking and puts all of zod (450 KB) in every bundle.",
        },
      ],
    },
  },
  {
    // Lambda code: request and response schemas are zod/mini. Classic zod costs ~90 KB of every
    // bundle and ~9 ms of every cold import (README "Benchmarks", issue 6); build-time tools and
    // tests may use it.
    files: ['shared/**', 'functions/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: classicZod }],
    },
  },
  {
    // Dependencies point one way: functions -> http -> domain -> api/db -> config. The domain
    // knows nothing of the transport; what both need (the public shapes, the query parameter
    // builders) sits below both in shared/api/.
    files: DOMAIN_FOLDERS.map((folder) => `shared/${folder}/**`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: classicZod,
          patterns: [{ group: ['**/http/*', '**/http'], message: 'The domain does not import the transport (shared/http): move what both need to shared/api/.' }],
        },
      ],
    },
  },
  {
    // No two of our files import each other, directly or around a circle, type imports included
    // (a type-only circle is the same knot for whoever changes either file).
    files: ['functions/**/*.ts', 'shared/**/*.ts', 'infra/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Our files are TypeScript imported without an extension: parse and resolve them as such.
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Response bodies in tests are whatever the server sent; the assertions are the type check.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The client package runs unchanged on Node, in browsers and in React Native: fetch only, no
    // Node built-ins, no Node globals.
    files: ['client/src/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'url', 'os', 'buffer', 'stream', 'zlib'], message: 'The client runs in browsers and React Native too: fetch only, no Node built-ins.' }] }],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname'],
    },
  },
  {
    // The local server and its scripts talk to a developer on a terminal.
    files: ['infra/local/**', 'infra/tools/**', 'shared/logging/**', 'test/bench/**', 'client/scripts/**'],
    rules: { 'no-console': 'off' },
  },
);
