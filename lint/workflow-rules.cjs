// The lint rules for workflow code, shipped as `durable-jobs/eslint` so a team's own workflows and
// job definitions get the guards this repository's do. Plain data for ESLint's flat config (the
// rules are typescript-eslint's and ESLint's own); this package does not depend on ESLint.
//
//   // eslint.config.mjs
//   import { workflowCodeRules } from 'durable-jobs/eslint';
//   export default [...tseslint.configs.recommended, workflowCodeRules({ files: ['src/workflows/**/*.ts', 'src/jobs/*.ts'] })];
//
// Workflow code runs in Temporal's deterministic sandbox, and the SDK evaluates its imports again
// for every job: it must not reach Node built-ins, I/O libraries, activity implementations (only
// their types), the client or worker, nor zod and payload schemas (two thirds of the worker's CPU
// per job when it did: docs/performance.md).
const { builtinModules } = require('node:module');

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * A flat-config object with the rules for workflow files.
 * @param {{ files: string[], ignores?: string[], schemaModules?: string[], ioLibraries?: string[], processModules?: string[] }} options
 *   `files`: the workflow modules and job definitions; `ignores`: files among them that are not
 *   workflow code (the catalog module, payload schemas); `schemaModules`: import patterns of
 *   modules that carry zod schemas (default: `**\/payloads`, `**\/*.payload`, `**\/catalog`, each
 *   also with `.js`);
 *   `ioLibraries`: packages that do I/O (default: a common few); `processModules`: your
 *   process-level modules (config, clients).
 */
function workflowCodeRules(options) {
  // With and without the `.js` a nodenext project writes.
  const schemaModules = options.schemaModules ?? ['**/payloads', '**/payloads/*', '**/*.payload', '**/*.payload.js', '**/catalog', '**/catalog.js'];
  return {
    files: options.files,
    ignores: options.ignores ?? [],
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
            {
              regex: '^durable-jobs(/(client|worker|console|activity|testing|eslint))?$',
              allowTypeImports: true,
              message: 'workflow code imports durable-jobs/workflow only (the rest as types)',
            },
            { group: options.ioLibraries ?? ['nodemailer', 'pino', 'commander', 'pg', 'better-sqlite3', 'kysely', 'axios', 'undici'], message: 'workflow code must stay deterministic: no I/O libraries' },
            { group: ['**/activities', '**/activities/*', '**/activities.js'], allowTypeImports: true, message: 'import activities as types only, through proxyActivities' },
            ...(options.processModules?.length ? [{ group: options.processModules, message: 'workflow code must not import process-level modules' }] : []),
            {
              group: ['zod', 'zod/*', 'fflate', 'fflate/*', ...schemaModules],
              allowTypeImports: true,
              message: 'workflow code and job definitions import zod and payload schemas as types only: the SDK evaluates their imports again for every job (durable-jobs docs/performance.md)',
            },
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
  };
}

module.exports = { workflowCodeRules, nodeBuiltins };
