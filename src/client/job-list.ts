import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { createdAtOf } from '../catalog/created-at';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { jobStatusName, jobTypeOf } from './job-record';

/** Job statuses that Temporal's visibility store can select by. */
export const listableStatuses = ['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed-out'] as const;

/** A status {@link listJobs} can select. */
export type ListableStatus = (typeof listableStatuses)[number];

const executionStatus: Record<ListableStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
};

/** Options of {@link listJobs}. */
export interface ListJobsOptions {
  /** Only jobs of this type (the `JobType` search attribute). @defaultValue every type */
  type?: string;
  /** Only jobs in this state. @defaultValue any */
  status?: ListableStatus;
  /** At most this many jobs. @defaultValue 50 */
  limit?: number;
}

/** One line of `jobctl list`. */
export interface JobSummary {
  id: string;
  type: string;
  /** Temporal's execution status, lower-cased: `running`, `completed`, `failed`, … */
  status: string;
  createdAt: string;
  closedAt?: string;
}

/**
 * The visibility query for a list: job workflows only (never the dead-letter queues): the
 * catalog's workflow types, or without a catalog every workflow started as a job (with a JobType).
 */
export function listQuery(options: ListJobsOptions, catalog?: Pick<Catalog, 'definitions'>): string {
  const clauses = options.type
    ? [`JobType = '${options.type.replace(/['\\]/g, '\\$&')}'`]
    : catalog
      ? [`WorkflowType IN (${catalog.definitions.map((d) => `'${d.workflowType}'`).join(', ')})`]
      : ['JobType IS NOT NULL'];
  if (options.status) clauses.push(`ExecutionStatus = '${executionStatus[options.status]}'`);
  return clauses.join(' AND ');
}

/**
 * Lists jobs from Temporal's visibility store (eventually consistent: a job shows up within a
 * second or so), one row per job: visibility has a row per run, so earlier runs of a redriven job
 * and the continue-as-new runs of a long one are left out, and a closed status is checked against
 * the job's latest run.
 */
export async function listJobs(client: Client, options: ListJobsOptions = {}, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>): Promise<JobSummary[]> {
  try {
    return await readJobs(client, options, catalog);
  } catch (err) {
    // A namespace without the JobType attribute refuses the query: name it, with the fix.
    throw missingSearchAttributeIn(err, client.options.namespace) ?? err;
  }
}

async function readJobs(client: Client, options: ListJobsOptions, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>): Promise<JobSummary[]> {
  const limit = options.limit ?? 50;
  const jobs: JobSummary[] = [];
  const seen = new Set<string>();
  for await (const execution of client.workflow.list({ query: listQuery(options, catalog), pageSize: Math.min(limit, 1000) })) {
    // Newest first, so the first row of an ID is its newest run that matches the filter.
    if (seen.has(execution.workflowId)) continue;
    seen.add(execution.workflowId);
    if (options.status && options.status !== 'running' && (await client.workflow.getHandle(execution.workflowId).describe()).runId !== execution.runId) continue;
    const summary: JobSummary = {
      id: execution.workflowId,
      type: jobTypeOf(execution, catalog),
      status: jobStatusName(execution.status.name),
      createdAt: createdAtOf(execution).toISOString(),
    };
    if (execution.closeTime) summary.closedAt = execution.closeTime.toISOString();
    jobs.push(summary);
    if (jobs.length >= limit) break;
  }
  return jobs;
}
