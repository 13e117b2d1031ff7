// Modules that workflow code loads on first use instead of importing. The SDK evaluates a
// workflow's imports for each workflow it runs, except those the worker loads once per sandbox
// (src/worker/library-parts.ts), which these would otherwise join. A require inside a function is
// bundled all the same but evaluated only when called, and then only in that workflow's own module
// cache. These are the costly modules that only rare
// paths need: before, they were most of the worker's CPU per job (docs/performance.md).
// test/workflow-kit/bundle-imports.test.ts fails if workflow code imports them at the top again.
/* eslint-disable @typescript-eslint/no-require-imports -- evaluated on first use only, see above */
import type * as Fflate from 'fflate/browser';

/** fflate, for a DLQ packing its entries when it continues as new: its tables are built at module load. */
export function fflate(): typeof Fflate {
  return require('fflate/browser') as typeof Fflate;
}
