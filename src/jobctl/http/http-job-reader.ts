// A job record read over Temporal's HTTP API: the same calls as JobClient.get (describe, the first
// run's start event, the latest run's history tail, the state query), decoded into the same message
// objects and assembled as JobClient assembles them (record-assembly.ts), without loading the SDK's gRPC client.
import type { temporal } from '@temporalio/proto';
import type { Catalog } from '../../catalog/catalog';
import { JobNotFoundError } from '../../shared/errors';
import { jobStateMemoKey, jobStateQueryName } from '../../workflow-kit/job-state-names';
import type { JobState } from '../../workflow-kit/job-state';
import { decodePayload, type PayloadDecoding } from '../../client/decode';
import type { JobDescription, JobRecord } from '../../client/job-record';
import { assembleRecord, readTail, tailPageSize } from '../../client/record-assembly';
import { needsLastStep } from '../../client/closed-state-read';
import { collectJobs, type JobSummary, type ListJobsOptions, type ListRows } from '../../client/job-list-pages';
import { stateQueryTimeoutMs } from '../../client/state-query-timeout';
import { fromJson } from './api-messages';
import { executionInfo } from './execution-info';
import { HttpApiError, HttpApiUnavailable, workflowNotFoundDetail, type HttpApi } from './http-api';

type DescribeResponse = temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type HistoryResponse = temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;

const service = 'temporal.api.workflowservice.v1';

/**
 * The HTTP API's path of a workflow. An ID with a `/` has none: the server keeps `%2F` encoded in
 * a path, so it would look that ID up with the escape in it and answer "not found" for a job that
 * exists. Such a read is left to gRPC (job IDs may hold `/`).
 */
export function workflowPath(id: string): string {
  if (id.includes('/')) throw new HttpApiUnavailable(`the HTTP API's paths cannot carry the "/" in ${JSON.stringify(id)}`);
  return `workflows/${encodeURIComponent(id)}`;
}

/** Reads job records over one {@link HttpApi}. */
export class HttpJobReader {
  constructor(
    private readonly api: HttpApi,
    private readonly decoding: PayloadDecoding,
    private readonly catalog?: Pick<Catalog, 'byWorkflowType'>,
  ) {}

  /** The job's workflow, described as the SDK describes it. Throws {@link JobNotFoundError} for an unknown ID. */
  async describe(id: string): Promise<JobDescription> {
    const json = await this.call(id, () => this.api.request('GET', workflowPath(id)));
    const raw = fromJson<DescribeResponse>(`${service}.DescribeWorkflowExecutionResponse`, json);
    return { ...(await executionInfo(raw.workflowExecutionInfo, this.decoding)), raw: raw as JobDescription['raw'] };
  }

  /** The job's record, as {@link JobClient.get} builds it for a job that has started; from `described` when the caller has described it already. */
  async record(id: string, described?: JobDescription): Promise<JobRecord> {
    const description = described ?? (await this.describe(id));
    const runId = description.raw.workflowExecutionInfo?.execution?.runId ?? '';
    const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || runId;
    const [start, tail, state] = await Promise.all([this.firstEvent(id, firstRunId), this.historyTail(id, runId, needsLastStep(description)), this.jobState(id, description)]);
    return assembleRecord({ description, start, tail, state }, this.decoding, this.catalog);
  }

  /** The result of a job whose latest run completed (`description` says so): its completion event's, decoded. */
  async result(id: string, description: JobDescription): Promise<unknown> {
    const runId = description.raw.workflowExecutionInfo?.execution?.runId ?? '';
    const page = await this.history(id, 'history-reverse', { 'execution.runId': runId, maximumPageSize: '1' });
    const completed = page.history?.events?.[0]?.workflowExecutionCompletedEventAttributes;
    if (!completed) throw new HttpApiUnavailable(`the last event of ${id}'s run ${runId} is not its completion`);
    const payload = completed.result?.payloads?.[0];
    return payload ? decodePayload(this.decoding, payload as Parameters<typeof decodePayload>[1]) : undefined;
  }

  /**
   * Jobs from the visibility store, as {@link JobClient.list} lists them (without a catalog, as
   * `jobctl list` does). A refused query (a namespace without the JobType attribute) is left to the
   * gRPC path, whose error names the attribute and its fix.
   */
  list(options: ListJobsOptions): Promise<JobSummary[]> {
    return collectJobs(this.rows, options);
  }

  /** One `ListWorkflowExecutions` page over HTTP, its rows decoded as the SDK decodes them. */
  readonly rows: ListRows = async (query, pageSize, nextPageToken) => {
    const params: Record<string, string> = { query, pageSize: String(pageSize), ...(nextPageToken ? { nextPageToken: Buffer.from(nextPageToken).toString('base64') } : {}) };
    const json = await this.api.request('GET', 'workflows', params).catch((err: unknown) => {
      throw err instanceof HttpApiError ? new HttpApiUnavailable(`list: ${err.message}`) : err;
    });
    const page = fromJson<temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse>(`${service}.ListWorkflowExecutionsResponse`, json);
    const rows = await Promise.all((page.executions ?? []).map((raw) => executionInfo(raw, this.decoding)));
    return page.nextPageToken?.length ? { rows, nextPageToken: page.nextPageToken } : { rows };
  };

  /** The first event of a run (its start). */
  private async firstEvent(id: string, runId: string): Promise<HistoryEvent | undefined> {
    const page = await this.history(id, 'history', { 'execution.runId': runId, maximumPageSize: '1' });
    return page.history?.events?.[0] ?? undefined;
  }

  /** The newest events of a run, newest first ({@link readTail}). */
  private historyTail(id: string, runId: string, toLastStep: boolean): Promise<HistoryEvent[]> {
    return readTail<string>(async (nextPageToken) => {
      const page = await this.history(id, 'history-reverse', { 'execution.runId': runId, maximumPageSize: String(tailPageSize), ...(nextPageToken ? { nextPageToken } : {}) });
      return { events: page.history?.events ?? [], next: page.nextPageToken?.length ? Buffer.from(page.nextPageToken).toString('base64') : undefined };
    }, toLastStep);
  }

  private async history(id: string, route: 'history' | 'history-reverse', query: Record<string, string>): Promise<HistoryResponse> {
    const json = await this.call(id, () => this.api.request('GET', `${workflowPath(id)}/${route}`, query));
    const type = route === 'history' ? 'GetWorkflowExecutionHistoryResponse' : 'GetWorkflowExecutionHistoryReverseResponse';
    return fromJson<HistoryResponse>(`${service}.${type}`, json);
  }

  /** The job's own report: its memo once closed, its query while it runs (`unanswered` if no worker answers within the bound). */
  private async jobState(id: string, description: JobDescription): Promise<JobState | 'unanswered' | undefined> {
    const memo = description.memo?.[jobStateMemoKey] as JobState | undefined;
    if (memo || description.status.name !== 'RUNNING' || description.historyLength <= 1) return memo;
    try {
      const body = { query: { queryType: jobStateQueryName } };
      const json = await this.api.request('POST', `${workflowPath(id)}/query/${jobStateQueryName}`, {}, body, stateQueryTimeoutMs);
      const answer = fromJson<temporal.api.workflowservice.v1.IQueryWorkflowResponse>(`${service}.QueryWorkflowResponse`, json);
      const payload = answer.queryResult?.payloads?.[0];
      if (answer.queryRejected || !payload) return 'unanswered';
      return (await decodePayload(this.decoding, payload as Parameters<typeof decodePayload>[1])) as JobState;
    } catch {
      return 'unanswered';
    }
  }

  /**
   * Runs a call, turning the server's "no such workflow" into {@link JobNotFoundError}. Any other
   * refusal (a namespace that does not exist, a permission) is left to the gRPC path, whose errors
   * say it as jobctl always has.
   */
  private async call(id: string, run: () => Promise<unknown>): Promise<unknown> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof HttpApiError)) throw err;
      if (err.detail === workflowNotFoundDetail) throw new JobNotFoundError(id);
      throw new HttpApiUnavailable(`${id}: ${err.message}`);
    }
  }
}
