// The lint rules for workflow code, exported by `durable-jobs/workflow` so a team's own workflows
// and job definitions get the guards this repository's do. Plain data for ESLint's flat config (the
// rules are typescript-eslint's and ESLint's own); this package does not depend on ESLint, and the
// module touches nothing of Node, so it may sit in the workflow entry point.
//
//   // eslint.config.mjs
//   import { workflowCodeRules } from 'durable-jobs/workflow';
//   export default [...tseslint.configs.recommended, workflowCodeRules({ files: ['src/workflows/**/*.ts', 'src/jobs/*.ts'] })];
//
// Workflow code runs in Temporal's deterministic sandbox, and the SDK evaluates its imports again
// for every job: it must not reach Node built-ins, I/O libraries, activity implementations (only
// their types), the client or worker, nor zod and payload schemas (two thirds of the worker's CPU
// per job when it did: docs/performance.md).

/** Options of {@link workflowCodeRules}. */
export interface WorkflowCodeRulesOptions {
  /** The workflow modules and job definitions. */
  files: string[];
  /** Files among them that are not workflow code (the catalog module, payload schemas). */
  ignores?: string[];
  /** Import patterns of modules that carry zod schemas (default: `**\/payloads`, `**\/*.payload`, `**\/catalog`, each also with `.js`). */
  schemaModules?: string[];
  /** Packages that do I/O (default: a common few). */
  ioLibraries?: string[];
  /** Your process-level modules (config, clients). */
  processModules?: string[];
}

/** A flat-config object (ESLint's `Linter.Config`). */
export interface WorkflowCodeRules {
  files: string[];
  ignores: string[];
  rules: Record<string, unknown>;
}

/**
 * Node's built-in modules by their bare names (Node 20's; a `node:` name of any version is refused
 * by pattern). test/deploy/workflow-lint.test.ts compares it with the running Node's list.
 */
export const nodeBuiltins: readonly string[] = [
  '_http_agent', '_http_client', '_http_common', '_http_incoming', '_http_outgoing',
  '_http_server', '_stream_duplex', '_stream_passthrough', '_stream_readable', '_stream_transform',
  '_stream_wrap', '_stream_writable', '_tls_common', '_tls_wrap', 'assert', 'assert/strict',
  'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto', 'dgram',
  'diagnostics_channel', 'dns', 'dns/promises', 'domain', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'inspector', 'inspector/promises', 'module', 'net', 'os', 'path', 'path/posix',
  'path/win32', 'perf_hooks', 'process', 'punycode', 'querystring', 'readline',
  'readline/promises', 'repl', 'stream', 'stream/consumers', 'stream/promises', 'stream/web',
  'string_decoder', 'sys', 'timers', 'timers/promises', 'tls', 'trace_events', 'tty', 'url',
  'util', 'util/types', 'v8', 'vm', 'wasi', 'worker_threads', 'zlib',
];

/** A flat-config object with the rules for workflow files. */
export function workflowCodeRules(options: WorkflowCodeRulesOptions): WorkflowCodeRules {
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
          // Every `node:` name, this Node's and later ones'.
          patterns: [
            { regex: '^node:', message: 'workflow code must stay deterministic: no Node built-ins' },
            {
              group: ['@temporalio/worker', '@temporalio/client', '@temporalio/activity', '@temporalio/testing'],
              message: 'workflow code may import only @temporalio/workflow and @temporalio/common',
            },
            {
              regex: '^durable-jobs(/(client|catalog|worker|console|activity|testing|eslint))?$',
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
