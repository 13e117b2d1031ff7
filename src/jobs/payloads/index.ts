import type { z } from 'zod';
import type { JobType } from '../registry';
import { generateReportPayload } from './generate-report';
import { noopPayload } from './noop';
import { processPaymentPayload } from './process-payment';
import { sendEmailPayload } from './send-email';
import { syncDataPayload } from './sync-data';

// Why the schemas are not in the job definitions: the Temporal SDK evaluates the workflow bundle's
// modules again for every workflow it runs, so that module state stays per workflow. Definitions
// are imported by workflow code; had they carried the schemas, every job would have evaluated zod
// and every payload schema first, which was two thirds of the worker's CPU per job
// (docs/performance.md). Workflows never parse payloads; the client and the activities do, here.

/**
 * The payload schema of every registered job type: what the client validates before anything is
 * enqueued, and what activities parse again. A type in the registry without a schema here (or a
 * schema without a type) is a compile error.
 */
export const payloadSchemas = {
  'send-email': sendEmailPayload,
  'process-payment': processPaymentPayload,
  'generate-report': generateReportPayload,
  'sync-data': syncDataPayload,
  noop: noopPayload,
} as const satisfies Record<JobType, z.ZodType>;

/** The payload a caller passes for job type `T`, before defaults are applied. */
export type JobPayloadInput<T extends JobType> = z.input<(typeof payloadSchemas)[T]>;

/** The payload of job type `T` after validation. */
export type JobPayload<T extends JobType> = z.output<(typeof payloadSchemas)[T]>;
