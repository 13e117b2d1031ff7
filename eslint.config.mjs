// Lint rules that guard the architecture. Workflow code runs in Temporal's deterministic sandbox:
// it must not reach Node built-ins, I/O libraries, or activity implementations (only their types).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The SDK evaluates every module that workflow code imports again for each workflow, so costly
// modules only rare paths need are loaded on first use (src/workflow/lazy-modules.ts) and may be
// imported here as types only. Job definitions are imported by workflows, so the same holds there;
// the payload schemas (src/jobs/payloads/) and the catalog and worker modules that gather them
// (src/jobs/catalog.ts, src/jobs/worker.ts) are where zod and the activities belong.
const lazyOnly = {
  group: ['zod', 'zod/*', 'fflate', 'fflate/*', '**/shared/limits', '**/jobs/payloads', '**/jobs/payloads/*', '**/payloads', '**/payloads/*', '**/jobs/catalog', '**/jobs/worker', '**/catalog/catalog', '**/catalog/validate', '**/catalog/prepare-job'],
  allowTypeImports: true,
  message: 'workflow code and job definitions import zod, payload schemas and fflate as types only; load them on first use through src/workflow/lazy-modules.ts (docs/performance.md)',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**'] },
  ...tseslint.configs.recommended,
  {
    // Workflow code: the built-in workflows, the library's (src/workflow), and what they import.
    // The external project's (test/fixtures/external-project) are held to the same rules as a user's would be.
    files: [
      'src/workflows/**/*.ts', 'src/workflow/**/*.ts', 'src/jobs/**/*.ts', 'src/catalog/define-job.ts', 'src/catalog/dead-letter.ts', 'src/catalog/task-queues.ts', 'src/catalog/job-type-attribute.ts',
      'test/fixtures/external-project/src/workflows/**/*.ts', 'test/fixtures/external-project/src/jobs/**/*.ts',
    ],
    ignores: ['src/jobs/payloads/**', 'src/jobs/catalog.ts', 'src/jobs/worker.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'workflow code must stay deterministic: no Node built-ins' })),
          patterns: [
            {
              group: ['@temporalio/worker', '@temporalio/client', '@temporalio/activity', '@temporalio/testing'],
              message: 'workflow code may import only @temporalio/workflow and @temporalio/common',
            },
            { group: ['nodemailer', 'pino', 'commander'], message: 'workflow code must stay deterministic: no I/O libraries' },
            { group: ['**/activities', '**/activities/*'], allowTypeImports: true, message: 'import activities as types only, through proxyActivities' },
            { group: ['**/client/*', '**/worker/*', '**/provision/*', '**/shared/config', '**/shared/temporal-connection'], message: 'workflow code must not import process-level modules' },
            lazyOnly,
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'no process in workflow code' },
        { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' },
        { name: 'setInterval', message: 'use sleep() from @temporalio/workflow' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
