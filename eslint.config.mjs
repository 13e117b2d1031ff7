// Lint rules that guard the architecture. Workflow code runs in Temporal's deterministic sandbox:
// it must not reach Node built-ins, I/O libraries, or activity implementations (only their types).
import tseslint from 'typescript-eslint';
import { createRequire } from 'node:module';

// The same rules a team applies to its own workflow code (`workflowCodeRules` from
// `durable-jobs/workflow`), read from their source through tsx: lint runs before the build.
const require = createRequire(import.meta.url);
require('tsx/cjs');
const { workflowCodeRules } = require('./src/workflow-kit/lint-rules.ts');

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**'] },
  ...tseslint.configs.recommended,
  // Workflow code: the built-in workflows, the library's (src/workflow), and what they import. The
  // payload schemas and the catalog, worker and settings modules that gather them are where zod
  // and the activities belong; fflate is loaded on first use (src/workflow-kit/lazy-modules.ts).
  workflowCodeRules({
    files: ['src/workflows/**/*.ts', 'src/workflow-kit/**/*.ts', 'src/deprecated/job.ts', 'src/jobs/**/*.ts', 'src/catalog/define-job.ts', 'src/catalog/dead-letter.ts', 'src/catalog/window-ids.ts', 'src/catalog/window-presets.ts', 'src/catalog/task-queues.ts', 'src/catalog/job-type-attribute.ts'],
    ignores: ['src/jobs/payloads/**', 'src/jobs/catalog.ts', 'src/app/worker.ts', 'src/jobs/settings.ts', 'src/jobs/database/**'],
    schemaModules: ['**/shared/limits', '**/jobs/payloads', '**/jobs/payloads/*', '**/payloads', '**/payloads/*', '**/jobs/catalog', '**/app/worker', '**/jobs/settings', '**/catalog/catalog', '**/catalog/validate', '**/catalog/prepare-job'],
    processModules: ['**/client/*', '**/worker/*', '**/provision/*', '**/shared/config', '**/shared/temporal-connection'],
  }),
  // The external project's workflow code (test/fixtures/external-project), held to the rules as a user's is: the defaults.
  workflowCodeRules({ files: ['test/fixtures/external-project/src/workflows/**/*.ts', 'test/fixtures/external-project/src/jobs/**/*.ts'] }),
  // The bench's user-defined job type (bench/activity): its workflow and definition, with the defaults a user gets.
  workflowCodeRules({ files: ['bench/activity/workflows.ts', 'bench/activity/greet.ts'] }),
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
