import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

/** The library's workflow types, bundled into every worker. Stored contracts. */
export const libraryWorkflowTypes = ['deadLetterWorkflow', 'concurrencyLimiterWorkflow', 'debounceJobWorkflow', 'dedupeJobWorkflow', 'dependencyBreakerWorkflow'] as const;

/** What `bundleWorkflowCode` is given for a team's workflows plus the library's. */
export type LibraryBundleOptions = Required<Pick<BundleOptions, 'workflowsPath' | 'webpackConfigHook'>>;

/**
 * Runs `use` with the bundle options of a workflows module that exports what `workflowsPath`
 * exports plus the library's workflows (the DLQ, the debounce and dedupe windows, the concurrency
 * limiter), so that a team's module lists only its own. The library's are exported by name, which
 * ES modules rank above `export *`: a team's module of 0.2 that still exports `deadLetterWorkflow`
 * is shadowed, never ambiguous. The module is written to a temporary folder and removed after `use`;
 * the SDK resolves its own modules from the folder of the workflows module, so the bundle looks up
 * packages in the `node_modules` that serves the team's module too (one `@temporalio/workflow`).
 */
export async function withLibraryWorkflows<T>(workflowsPath: string, use: (options: LibraryBundleOptions) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-workflows-'));
  try {
    const entry = path.join(dir, 'workflows.js');
    const library = require.resolve('../workflow-kit/library-workflows');
    await writeFile(entry, `export * from ${JSON.stringify(workflowsPath)};\nexport { ${libraryWorkflowTypes.join(', ')} } from ${JSON.stringify(library)};\n`);
    const modules = nodeModulesServing(workflowsPath);
    return await use({
      workflowsPath: entry,
      webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? ['node_modules']), modules] } }),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The `node_modules` folder from which the workflows module gets `@temporalio/workflow` (else the library's). */
function nodeModulesServing(workflowsPath: string): string {
  let manifest: string;
  try {
    manifest = require.resolve('@temporalio/workflow/package.json', { paths: [path.dirname(workflowsPath)] });
  } catch {
    manifest = require.resolve('@temporalio/workflow/package.json');
  }
  return path.resolve(path.dirname(manifest), '..', '..');
}
