import type { JobDefinition } from '../catalog/define-job';
import { generateReportJob } from './generate-report';
import { noopJob } from './noop';
import { processPaymentJob } from './process-payment';
import { sendEmailJob } from './send-email';
import { syncDataJob } from './sync-data';

/**
 * The single catalog of job types, read by the client, the worker, `jobctl` and workflow code.
 * To add a job type: write its definition file, its payload schema (`payloads/`) and its workflow,
 * then add it here; the compiler then asks for its schema in `payloads/index.ts`.
 */
export const registry = {
  'send-email': sendEmailJob,
  'process-payment': processPaymentJob,
  'generate-report': generateReportJob,
  'sync-data': syncDataJob,
  // Does nothing: the benchmark's job and a health check (see src/jobs/noop.ts).
  noop: noopJob,
} as const satisfies { [T in string]: JobDefinition<never, T> };

/** Name of a registered job type. */
export type JobType = keyof typeof registry;

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
