import type { Catalog } from '../catalog/catalog';
import { ConfigError } from '../shared/errors';

/**
 * Fails at worker start, not at a job's first workflow task, when the workflows module does not
 * export a catalog job's workflow (a workflow task for an unknown type fails and is retried
 * forever, holding the job). The library's own workflows (the DLQ, windows, limiter) are added to
 * every bundle (workflow-entry.ts) and need no export. Loads the module outside the sandbox to read
 * its exports; a module that cannot be loaded so (it needs the sandbox at load) is left to the SDK.
 */
export function checkWorkflowExports(workflowsPath: string, catalog: Pick<Catalog, 'definitions'>): void {
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
    return;
  }
  const missing = catalog.definitions.filter((d) => typeof exported[d.workflowType] !== 'function');
  if (missing.length > 0) {
    throw new ConfigError(missing.map((d) => ({ path: 'workflowsPath', message: `${workflowsPath} exports no ${d.workflowType}, the workflow of job type ${d.type}` })));
  }
}
