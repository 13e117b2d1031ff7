import type { z } from 'zod';
import type { JobDefinition } from './definition';
import { generateReportJob } from './generate-report';
import { noopJob } from './noop';
import { processPaymentJob } from './process-payment';
import { sendEmailJob } from './send-email';
import { syncDataJob } from './sync-data';

/**
 * The single catalog of job types, read by the client, the worker and `jobctl`.
 * To add a job type: write its definition file and its workflow, then add it here.
 */
export const registry = {
  'send-email': sendEmailJob,
  'process-payment': processPaymentJob,
  'generate-report': generateReportJob,
  'sync-data': syncDataJob,
  // Does nothing: the benchmark's job and a health check (see src/jobs/noop.ts).
  noop: noopJob,
} as const satisfies { [T in string]: JobDefinition<z.ZodType, T> };

/** Name of a registered job type. */
export type JobType = keyof typeof registry;

/** The payload a caller passes for job type `T`, before defaults are applied. */
export type JobPayloadInput<T extends JobType> = z.input<(typeof registry)[T]['payload']>;

/** The payload of job type `T` after validation. */
export type JobPayload<T extends JobType> = z.output<(typeof registry)[T]['payload']>;

/** Names of all registered job types. */
export const jobTypes = Object.keys(registry) as JobType[];

/** Whether `name` is a registered job type. */
export function isJobType(name: string): name is JobType {
  return Object.prototype.hasOwnProperty.call(registry, name);
}

/** The definition whose workflow has this workflow type, if any. */
export function definitionForWorkflowType(workflowType: string): JobDefinition | undefined {
  return Object.values(registry).find((d: JobDefinition) => d.workflowType === workflowType);
}
