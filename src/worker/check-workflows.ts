import type { Catalog } from '../catalog/catalog';
import { debounceWorkflowType, dedupeWorkflowType } from '../catalog/window-ids';
import { ConfigError } from '../shared/errors';
import { concurrencyLimiterWorkflowType } from '../catalog/concurrency-limit';

/**
 * Fails at worker start, not at a job's first workflow task, when the workflows module does not
 * export a catalog job's workflow or the DLQ's (a workflow task for an unknown type fails and is
 * retried forever, holding the job). Loads the module outside the sandbox to read its exports;
 * a module that cannot be loaded so (it needs the sandbox at load) is left to the SDK. Returns the
 * window workflows (debounce, dedupe) it does not export, which only the enqueue options that use
 * them need: the worker warns of those.
 */
export function checkWorkflowExports(workflowsPath: string, catalog: Pick<Catalog, 'definitions'>): string[] {
  let exported: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path known only at run time
    exported = require(workflowsPath) as Record<string, unknown>;
  } catch (err) {
    // A step naming a preset its job lacks throws when the module loads (jobActivities at the
    // top): in the sandbox that fails every workflow task of the job, so it stops the worker here.
    if (err instanceof TypeError && /declares no activity preset/.test(err.message)) {
      throw new ConfigError([{ path: 'workflowsPath', message: `${workflowsPath}: ${err.message}` }], { cause: err });
    }
    return [];
  }
  const wanted = [...catalog.definitions.map((d) => ({ name: d.workflowType, of: `job type ${d.type}` })), { name: 'deadLetterWorkflow', of: "the dead-letter queue (export { deadLetterWorkflow } from 'durable-jobs/workflow')" }];
  if (catalog.definitions.some((d) => d.limits?.concurrencyPerKey !== undefined)) {
    wanted.push({ name: concurrencyLimiterWorkflowType, of: "per-key concurrency limits (export { concurrencyLimiterWorkflow } from 'durable-jobs/workflow')" });
  }
  const missing = wanted.filter((w) => typeof exported[w.name] !== 'function');
  if (missing.length > 0) {
    throw new ConfigError(missing.map((m) => ({ path: 'workflowsPath', message: `${workflowsPath} exports no ${m.name}, the workflow of ${m.of}` })));
  }
  return [debounceWorkflowType, dedupeWorkflowType].filter((name) => typeof exported[name] !== 'function');
}
