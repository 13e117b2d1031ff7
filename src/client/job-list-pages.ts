// Jobs listed from Temporal's visibility store, whatever carries the calls (the SDK's gRPC client,
// job-list.ts; jobctl's HTTP reads, http/http-list.ts): the query a filter makes, and pages of one
// row per job. `jobctl list` reads pages until it has its limit; the console shows one page at a
// time and hands Temporal's own page token back as its cursor, so no list is ever loaded whole.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { createdAtOf } from '../catalog/created-at';
import { jobStatusName, jobTypeOf } from './job-record';

/** Job statuses that Temporal's visibility store can select by. */
export const listableStatuses = ['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed-out'] as const;

/** A status {@link listJobs} can select. */
export type ListableStatus = (typeof listableStatuses)[number];

/** Each listable status as visibility's `ExecutionStatus` names it. */
export const executionStatus: Record<ListableStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
};

/** Options of {@link listJobs}; {@link listJobsPage} takes the same filters. */
export interface ListJobsOptions {
  /** Only jobs of this type (the `JobType` search attribute). @defaultValue every type */
  type?: string;
  /** Only jobs in this state. @defaultValue any */
  status?: ListableStatus;
  /** Only jobs whose ID starts with this (`WorkflowId STARTS_WITH`). @defaultValue any ID */
  idPrefix?: string;
  /**
   * Only jobs created at or after this time: visibility's `StartTime`, the start of the job's
   * latest run (its enqueue, or its latest redrive). @defaultValue no bound
   */
  createdFrom?: Date;
  /** Only jobs created before this time (exclusive), as {@link createdFrom}. @defaultValue no bound */
  createdBefore?: Date;
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

/** What {@link listJobsPage} reads. */
export interface JobListPageOptions {
  /** Visibility rows read for the page, at most 1000; earlier runs among them are left out, so a page may hold fewer jobs. @defaultValue 50 */
  pageSize?: number;
  /** The previous page's `nextPageToken`. @defaultValue the first page */
  nextPageToken?: Uint8Array;
}

/** One page of jobs, newest first. */
export interface JobListPage {
  jobs: JobSummary[];
  /** Temporal's token for the next page; unset on the last one. */
  nextPageToken?: Uint8Array;
}

/** A string as a visibility query literal: single-quoted, with `'` and `\` escaped. */
export function quoteQueryValue(value: string): string {
  return `'${value.replace(/['\\]/g, '\\$&')}'`;
}

/**
 * The visibility query for a list: job workflows only (never the dead-letter queues): the
 * catalog's workflow types, or without a catalog every workflow started as a job (with a JobType).
 * A run that continued as new is never a job's latest, so it is left out unless a status is asked for.
 */
export function listQuery(options: Omit<ListJobsOptions, 'limit'>, catalog?: Pick<Catalog, 'definitions'>): string {
  const clauses = options.type
    ? [`JobType = ${quoteQueryValue(options.type)}`]
    : catalog
      ? [`WorkflowType IN (${catalog.definitions.map((d) => quoteQueryValue(d.workflowType)).join(', ')})`]
      : ['JobType IS NOT NULL'];
  clauses.push(options.status ? `ExecutionStatus = '${executionStatus[options.status]}'` : `ExecutionStatus != 'ContinuedAsNew'`);
  if (options.idPrefix) clauses.push(`WorkflowId STARTS_WITH ${quoteQueryValue(options.idPrefix)}`);
  if (options.createdFrom) clauses.push(`StartTime >= '${options.createdFrom.toISOString()}'`);
  if (options.createdBefore) clauses.push(`StartTime < '${options.createdBefore.toISOString()}'`);
  return clauses.join(' AND ');
}

/** A visibility row, as the SDK's client decodes it (memo through the codecs, search attributes typed). */
export type VisibilityRow = Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'type' | 'status' | 'typedSearchAttributes' | 'memo' | 'startTime' | 'closeTime'>;

/** One `ListWorkflowExecutions` call: the rows of a page of `query`, and the token of the next. */
export type ListRows = (query: string, pageSize: number, nextPageToken?: Uint8Array) => Promise<{ rows: VisibilityRow[]; nextPageToken?: Uint8Array }>;

/** Reads pages until it has `limit` jobs (see {@link jobsPage}). */
export async function collectJobs(listRows: ListRows, options: ListJobsOptions = {}, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>): Promise<JobSummary[]> {
  const limit = options.limit ?? 50;
  const jobs: JobSummary[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await jobsPage(listRows, options, catalog, { pageSize: Math.min(limit, 1000), nextPageToken });
    jobs.push(...page.jobs);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken && jobs.length < limit);
  return jobs.slice(0, limit);
}

/**
 * One page of jobs, newest first, with Temporal's token for the next. One row per job: visibility
 * has a row per run, so a row of a closed run is kept only if it is the job's latest run (a
 * redriven job's earlier failure is left out, on whichever page it falls), checked with one
 * visibility query per page.
 */
export async function jobsPage(listRows: ListRows, options: Omit<ListJobsOptions, 'limit'>, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>, page: JobListPageOptions = {}): Promise<JobListPage> {
  const response = await listRows(listQuery(options, catalog), Math.max(1, Math.min(page.pageSize ?? 50, 1000)), page.nextPageToken);
  const rows = response.rows;
  const latest = await latestRunIds(listRows, rows.filter((r) => r.status.name !== 'RUNNING').map((r) => r.workflowId));
  const seen = new Set<string>();
  const jobs: JobSummary[] = [];
  for (const row of rows) {
    // A closed run with a newer one is an earlier run; one visibility cannot place (yet) is kept.
    const newer = row.status.name !== 'RUNNING' && (latest.get(row.workflowId) ?? row.runId) !== row.runId;
    if (seen.has(row.workflowId) || newer) continue;
    seen.add(row.workflowId);
    jobs.push(toSummary(row, catalog));
  }
  const token = response.nextPageToken;
  return token && token.length > 0 ? { jobs, nextPageToken: token } : { jobs };
}

function toSummary(row: VisibilityRow, catalog?: Pick<Catalog, 'byWorkflowType'>): JobSummary {
  const summary: JobSummary = { id: row.workflowId, type: jobTypeOf(row, catalog), status: jobStatusName(row.status.name), createdAt: createdAtOf(row).toISOString() };
  if (row.closeTime) summary.closedAt = row.closeTime.toISOString();
  return summary;
}

/** IDs asked about per visibility query, keeping the query short. */
const idsPerQuery = 100;

/**
 * The latest run of each job ID, from visibility: runs of one ID follow one another, so the one
 * that started last. Continued-as-new runs are never the latest and are not read.
 */
async function latestRunIds(listRows: ListRows, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const latest = new Map<string, { runId: string; start: number }>();
  for (let i = 0; i < unique.length; i += idsPerQuery) {
    const chunk = unique.slice(i, i + idsPerQuery);
    const query = `WorkflowId IN (${chunk.map(quoteQueryValue).join(', ')}) AND ExecutionStatus != 'ContinuedAsNew'`;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await listRows(query, 1000, nextPageToken);
      for (const run of page.rows) {
        const seen = latest.get(run.workflowId);
        if (!seen || run.startTime.getTime() > seen.start) latest.set(run.workflowId, { runId: run.runId, start: run.startTime.getTime() });
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  return new Map([...latest].map(([id, { runId }]) => [id, runId]));
}
