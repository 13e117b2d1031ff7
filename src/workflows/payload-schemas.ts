import type * as PayloadsModule from '../jobs/payloads';

/**
 * The payload schemas, for the rare workflow code that must parse a payload (the DLQ's check of a
 * redrive's patch). Required on first use rather than imported: the SDK evaluates every module a
 * workflow bundle imports again for each workflow it runs, and a top-level import here would make
 * every job of every type evaluate zod and all the schemas (see `src/jobs/payloads/index.ts`). A
 * require inside a function is bundled all the same but evaluated only when called, and then only
 * in that workflow's own module cache.
 */
export function payloadSchemas(): (typeof PayloadsModule)['payloadSchemas'] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- evaluated on first use only, see above
  return (require('../jobs/payloads') as typeof PayloadsModule).payloadSchemas;
}
