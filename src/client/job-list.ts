// Jobs listed over the SDK's gRPC client: job-list-pages.ts's pages, read with
// `listWorkflowExecutions` and decoded as the SDK's own `workflow.list` decodes them.
import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { executionInfoFromRaw } from './sdk-client-internals';
import { collectJobs, jobsPage, type JobListPage, type JobListPageOptions, type JobSummary, type ListJobsOptions, type ListRows } from './job-list-pages';

export * from './job-list-pages';

/** {@link ListRows} over an SDK client. */
function rowsOf(client: Client): ListRows {
  const { namespace, loadedDataConverter } = client.options;
  return async (query, pageSize, nextPageToken) => {
    const response = await client.workflowService.listWorkflowExecutions({ namespace, query, pageSize, nextPageToken });
    const rows = await Promise.all(response.executions.map((raw) => executionInfoFromRaw(raw, loadedDataConverter, raw, namespace)));
    return response.nextPageToken?.length ? { rows, nextPageToken: response.nextPageToken } : { rows };
  };
}

/** A namespace without the JobType attribute refuses the query: name it, with the fix. */
async function namingMissingAttribute<T>(client: Client, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw missingSearchAttributeIn(err, client.options.namespace) ?? err;
  }
}

/**
 * Lists jobs from Temporal's visibility store (eventually consistent: a job shows up within a
 * second or so), one row per job, reading pages until it has `limit`.
 */
export function listJobs(client: Client, options: ListJobsOptions = {}, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>): Promise<JobSummary[]> {
  return namingMissingAttribute(client, () => collectJobs(rowsOf(client), options, catalog));
}

/** One page of jobs from Temporal's visibility store, newest first, with Temporal's token for the next (see {@link jobsPage}). */
export function listJobsPage(client: Client, options: Omit<ListJobsOptions, 'limit'>, catalog?: Pick<Catalog, 'definitions' | 'byWorkflowType'>, page: JobListPageOptions = {}): Promise<JobListPage> {
  return namingMissingAttribute(client, () => jobsPage(rowsOf(client), options, catalog, page));
}
