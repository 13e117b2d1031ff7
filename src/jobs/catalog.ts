import { defineCatalog } from '../catalog';
import { generateReportJob } from './generate-report';
import { noopJob } from './noop';
import { generateReportPayload } from './payloads/generate-report';
import { noopPayload } from './payloads/noop';
import { processPaymentPayload } from './payloads/process-payment';
import { sendEmailPayload } from './payloads/send-email';
import { syncDataPayload } from './payloads/sync-data';
import { processPaymentJob } from './process-payment';
import { sendEmailJob } from './send-email';
import { syncDataJob } from './sync-data';

// Why the schemas are not in the job definitions: the Temporal SDK evaluates the workflow bundle's
// modules again for every workflow it runs, so that module state stays per workflow. Definitions
// are imported by workflow code; had they carried the schemas, every job would have evaluated zod
// and every payload schema first, which was two thirds of the worker's CPU per job
// (docs/performance.md). Workflows never import this module; the client, jobctl and the
// activities do.

/**
 * The built-in job types, written against the public API as a user's catalog would be. `jobctl`
 * finds it through this repository's package.json (`"durable-jobs": { "catalog": … }`).
 */
export const catalog = defineCatalog({
  jobs: [sendEmailJob, processPaymentJob, generateReportJob, syncDataJob, noopJob],
  payloads: {
    'send-email': sendEmailPayload,
    'process-payment': processPaymentPayload,
    'generate-report': generateReportPayload,
    'sync-data': syncDataPayload,
    // Does nothing: the benchmark's job and a health check (see src/jobs/noop.ts).
    noop: noopPayload,
  },
});

/** The built-in catalog's type. */
export type BuiltInCatalog = typeof catalog;

/** Name of a built-in job type. */
export type BuiltInJobType = keyof BuiltInCatalog['payloads'] & string;
