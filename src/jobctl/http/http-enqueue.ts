// `jobctl enqueue` over Temporal's HTTP API: the start the SDK's client makes (jobWorkflowStart's
// options, encoded by the SDK's own converters), sent as proto3 JSON, so that one enqueue does not
// load the gRPC client and the whole protobuf API. Debounced and deduplicated enqueues, and every
// case the HTTP path is not sure of, go to the SDK client (cli-enqueue.ts).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Payload, Priority, SearchAttributePair } from '@temporalio/common';
import type { Catalog } from '../../catalog/catalog';
import { jobPauseMemoKey, pauseRecordId, type JobPause } from '../../catalog/job-pause';
import type { PreparedJob } from '../../catalog/prepare-job';
import { jobWorkflowStart } from '../../catalog/start-job';
import { JobNotFoundError } from '../../shared/errors';
import { compilePriority, defaultPayloadConverter, encodeUnifiedSearchAttributes } from '../../shared/sdk-internals';
import { checkSameJob } from '../../client/existing-job';
import { HttpApiError, HttpApiUnavailable, type HttpApi } from './http-api';
import { workflowPath, type HttpJobReader } from './http-job-reader';
import { httpTaskQueue, readOverHttp } from './http-reads';

/** The detail of the server's refusal to start an ID that is taken (gRPC ALREADY_EXISTS). */
const alreadyStartedDetail = 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure';

/** A payload in proto3 JSON: its metadata values and data in base64. */
function payloadJson(payload: Payload): { metadata: Record<string, string>; data: string } {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

const toPayload = (value: unknown) => payloadJson(defaultPayloadConverter.toPayload(value));

/** A duration in ms as proto3 JSON (`1.5s`), to the millisecond as the SDK sends it. */
const durationJson = (ms: number) => `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}s`;

/** The StartWorkflowExecution request the SDK's `workflow.start` sends for this job, in proto3 JSON. */
export function startRequest(job: PreparedJob, taskQueue: string, paused: JobPause | undefined): Record<string, unknown> {
  const { workflowType, options } = jobWorkflowStart({ ...job, taskQueue, mode: 'enqueue', paused });
  const delayMs = typeof options.startDelay === 'number' ? options.startDelay : undefined;
  const indexed = encodeUnifiedSearchAttributes(undefined, options.typedSearchAttributes as SearchAttributePair[]);
  return {
    identity: `${process.pid}@${os.hostname()}`,
    requestId: randomUUID(),
    workflowIdReusePolicy: `WORKFLOW_ID_REUSE_POLICY_${options.workflowIdReusePolicy}`,
    workflowIdConflictPolicy: `WORKFLOW_ID_CONFLICT_POLICY_${options.workflowIdConflictPolicy}`,
    workflowType: { name: workflowType },
    input: { payloads: (options.args as unknown[]).map(toPayload) },
    taskQueue: { kind: 'TASK_QUEUE_KIND_NORMAL', name: options.taskQueue },
    ...(delayMs ? { workflowStartDelay: durationJson(delayMs) } : {}),
    memo: { fields: Object.fromEntries(Object.entries(options.memo ?? {}).map(([key, value]) => [key, toPayload(value)])) },
    searchAttributes: { indexedFields: Object.fromEntries(Object.entries(indexed).map(([key, payload]) => [key, payloadJson(payload)])) },
    header: {},
    ...(options.staticSummary === undefined ? {} : { userMetadata: { summary: toPayload(options.staticSummary) } }),
    ...(options.priority ? { priority: compilePriority(options.priority as Priority) } : {}),
  };
}

/** A type's pause, as {@link readJobPause} reads it: its open pause record's memo. */
async function readPause(reader: HttpJobReader, taskQueue: string, type: string): Promise<JobPause | undefined> {
  try {
    const record = await reader.describe(pauseRecordId(taskQueue, type));
    return record.status.name === 'RUNNING' ? (record.memo?.[jobPauseMemoKey] as JobPause | undefined) : undefined;
  } catch (err) {
    if (err instanceof JobNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Starts a job that {@link prepareJob} validated, over the HTTP API, as {@link JobClient.start}
 * does: the type's pause read first, a taken ID checked for the same job. `undefined` when the
 * HTTP API cannot take it (not configured, nothing answers, a refusal other than a taken ID, a
 * debounced or deduplicated enqueue): the caller then starts it over gRPC, whose errors say why.
 */
export function enqueueOverHttp(job: PreparedJob, catalog?: Pick<Catalog, 'byWorkflowType'>, env: NodeJS.ProcessEnv = process.env): Promise<{ id: string; existed: boolean } | undefined> {
  if (job.debounce || job.dedupe) return Promise.resolve(undefined);
  const taskQueue = httpTaskQueue(env);
  return readOverHttp(async (reader, api: HttpApi) => {
    const path = workflowPath(job.id);
    const request = startRequest(job, taskQueue, await readPause(reader, taskQueue, job.definition.type));
    try {
      await api.request('POST', path, {}, request);
      return { id: job.id, existed: false };
    } catch (err) {
      if (!(err instanceof HttpApiError)) throw err;
      if (err.detail !== alreadyStartedDetail) throw new HttpApiUnavailable(`start ${job.id}: ${err.message}`);
    }
    checkSameJob(await reader.describe(job.id), job, catalog);
    return { id: job.id, existed: true };
  }, catalog, env);
}
