/**
 * Packages whose evaluation is costly and that workflow code has no need of: the SDK evaluates the
 * workflow bundle's modules again for every workflow it runs, and zod with the payload schemas was
 * two thirds of the worker's CPU per job when job definitions carried them (docs/performance.md).
 */
const heavyPackages = ['zod'];

/**
 * The heavy packages a workflow bundle contains (its code names each module's path): a user's
 * workflow or job definition that imports its payload schema at the top, say. The worker warns at
 * start, naming them; lint (`workflowCodeRules` from `durable-jobs/workflow`) catches the import before that.
 */
export function heavyModulesIn(bundleCode: string): string[] {
  return heavyPackages.filter((name) => bundleCode.includes(`node_modules/${name}/`));
}
