import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The library's workflow types, bundled into every worker. Stored contracts. */
export const libraryWorkflowTypes = ['deadLetterWorkflow', 'concurrencyLimiterWorkflow', 'debounceJobWorkflow', 'dedupeJobWorkflow'] as const;

/**
 * Runs `use` with the path of a workflows module that exports what `workflowsPath` exports plus the
 * library's workflows (the DLQ, the debounce and dedupe windows, the concurrency limiter), so that
 * a team's module lists only its own. The library's are exported by name, which ES modules rank
 * above `export *`: a team's module of 0.2 that still exports `deadLetterWorkflow` itself is
 * shadowed, never ambiguous. The module is written to a temporary folder and removed after `use`.
 */
export async function withLibraryWorkflows<T>(workflowsPath: string, use: (entryPath: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-workflows-'));
  try {
    const entry = path.join(dir, 'workflows.js');
    const library = require.resolve('../workflow/library-workflows');
    const names = libraryWorkflowTypes.join(', ');
    await writeFile(entry, `export * from ${JSON.stringify(workflowsPath)};\nexport { ${names} } from ${JSON.stringify(library)};\n`);
    return await use(entry);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
