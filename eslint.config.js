import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'dist/'] },
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
      'no-restricted-imports': [
        'error',
        {
          paths: ['zod', 'zod/v4', 'zod/v4/classic', 'zod/v3'].map((name) => ({
            name,
            // Types cost nothing at run time.
            allowTypeImports: true,
            message:
              "Use `import * as z from 'zod/mini'` (types: 'zod/v4/core'): classic zod adds ~90 KB to the bundle and ~9 ms to the cold import of every function that imports it.",
          })),
        },
      ],
    },
  },
  {
    // Response bodies in tests are whatever the server sent; the assertions are the type check.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The local server and its scripts talk to a developer on a terminal.
    files: ['infra/local/**', 'infra/tools/**', 'shared/logging/**', 'test/bench/**'],
    rules: { 'no-console': 'off' },
  },
);
