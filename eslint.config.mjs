// ESLint's flat config: typescript-eslint's type-aware recommended rules on our TypeScript, ESLint's recommended
// rules on the JavaScript (bin/, scripts/), and eslint-config-prettier last, so that nothing here argues with
// Prettier about layout. A rule turned off or narrowed says why, beside it.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import n from 'eslint-plugin-n'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // examples/typescript-client is an integrator's code, typed by a schema.d.ts the suite generates: its own test
  // type-checks it with tsc --strict (test/e2e/typescript-client.test.ts).
  {
    ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/', 'docs/', 'tmp/', 'examples/typescript-client/', 'examples/hey-api-client/'],
  },
  js.configs.recommended,
  {
    rules: {
      // A bare `catch {}` is how best-effort cleanup says "nothing to do if this fails" (removing a lock or a
      // temporary file that may be gone); an empty block anywhere else is still an error.
      'no-empty': ['error', {allowEmptyCatch: true}],
      // Off: matching terminal control characters (ESC, C0, DEL) is what the sanitizer and the width code are for.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
    rules: {
      // Off: an `async` method that implements a promise-returning contract (an oclif flag's parse, a token
      // source's getToken) turns a throw into a rejection, which is what its callers handle; the rule would have
      // those methods lose `async` and throw synchronously instead.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are the convention for what a destructuring or a signature must name but does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true},
      ],
    },
  },
  {
    // Rooms a person can hold in their head: a function of over 80 lines, or a module of over 300, is split where
    // its parts have names of their own (the listener's accept, deliver and state; the sandbox's handler groups).
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', {max: 300}],
      'max-lines-per-function': ['error', {max: 80, skipBlankLines: true, skipComments: true}],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: they read the JSON documents the CLI printed (JSON.parse gives `any`) and assert on their
      // shape with expect(); declaring a type for each would restate the assertion it is read for.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // The same documents are typed `any` where a helper hands them out (r.json()), for the same reason.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {globals: {...globals.node}},
  },
  {
    // From the oclif community's config (eslint-config-oclif), the rule that fits a CLI promising Node 20: no
    // Node API newer than package.json's engines. The rest of that config is not taken: it needs ESLint 10, and its
    // perfectionist sorting would reorder some 1,900 members, imports and keys the code orders by meaning.
    plugins: {n},
    rules: {
      'n/no-unsupported-features/node-builtins': [
        'error',
        {
          // Stable in the Node 20 releases our engines admit, though n still calls them experimental there:
          // fetch and its classes (used for the sandbox's control calls and tests), the global crypto
          // (randomUUID), import.meta.dirname (20.11) and process.setSourceMapsEnabled (--debug).
          ignores: ['fetch', 'Response', 'Headers', 'crypto', 'import.meta.dirname', 'process.setSourceMapsEnabled'],
        },
      ],
    },
  },
  prettier,
)
