import { randomUUID } from 'node:crypto';
import { Client, Connection, isGrpcServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { registry, type JobPayloadInput, type JobType } from '../jobs/registry';
import { loadConfig, type Config, type ConfigOverrides } from '../shared/config';
import { JobNotFoundError, UnreachableError } from '../shared/errors';
import { connectionOptions } from '../shared/temporal-connection';
import { toJobRecord, type JobRecord } from './job-record';
import { assertJobType, validateOptions, validatePayload } from './validate';

/** gRPC status NOT_FOUND: the workflow vanished between two calls (e.g. retention expired). */
const GRPC_NOT_FOUND = 5;

/** Options of {@link JobClient.enqueue}. */
export interface EnqueueOptions {
  /**
   * The job ID, which becomes the workflow ID. Enqueueing an ID that already exists starts nothing
   * and returns the existing job. @defaultValue `<type>-<random UUID>`
   */
  id?: string;
  /** Wait this long before the first attempt, e.g. `'10m'`. @defaultValue no delay */
  delay?: Duration;
}

/** What {@link JobClient.enqueue} did. */
export interface EnqueueResult {
  /** The job ID. */
  id: string;
  /** True when a job with this ID already existed, so nothing new was started. */
  existed: boolean;
  /** Handle on the job's workflow, e.g. for `result()`. */
  handle: WorkflowHandle;
}

/** The typed API for enqueueing jobs and reading them back. */
export class JobClient {
  constructor(
    /** The Temporal client underneath. */
    readonly temporal: Client,
    private readonly config: Pick<Config, 'taskQueue'>,
  ) {}

  /** Connects using the configuration (explicit overrides > env vars > defaults). */
  static async connect(overrides: ConfigOverrides = {}): Promise<JobClient> {
    const config = loadConfig(overrides);
    const options = connectionOptions(config);
    let connection: Connection;
    try {
      connection = await Connection.connect({ ...options, connectTimeout: '5s' });
    } catch (err) {
      throw new UnreachableError(options.address, err);
    }
    return new JobClient(new Client({ connection, namespace: config.namespace }), config);
  }

  /**
   * Validates the payload, then starts the job. Nothing reaches Temporal unless the type, payload
   * and options are all valid. Enqueueing an existing job ID is idempotent: the job runs once.
   */
  async enqueue<T extends JobType>(type: T, payload: JobPayloadInput<T>, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    assertJobType(type);
    const parsed = validatePayload(type, payload);
    const { id: chosenId, delayMs } = validateOptions(options);
    const id = chosenId ?? `${type}-${randomUUID()}`;
    try {
      const handle = await this.temporal.workflow.start(registry[type].workflowType, {
        taskQueue: this.config.taskQueue,
        workflowId: id,
        args: [parsed],
        // An ID is never reused, even after the job closed (for the namespace's retention period),
        // and starting a running ID fails, which is how we detect the duplicate.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        startDelay: delayMs || undefined,
      });
      return { id, existed: false, handle };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        return { id, existed: true, handle: this.temporal.workflow.getHandle(id) };
      }
      throw err;
    }
  }

  /** Reads a job back from Temporal. Throws {@link JobNotFoundError} for an unknown ID. */
  async get(id: string): Promise<JobRecord> {
    const handle = this.temporal.workflow.getHandle(id);
    try {
      // describe() first: it turns an unknown ID into WorkflowNotFoundError; fetchHistory() does not.
      const description = await handle.describe();
      const events = (await handle.fetchHistory()).events ?? [];
      const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
      const payload = input ? await decodeFromPayloadsAtIndex(this.temporal.options.loadedDataConverter, 0, input) : undefined;
      return toJobRecord({ description, events, payload, now: new Date() });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw new JobNotFoundError(id);
      throw err;
    }
  }

  /** Waits for a job to finish and returns its result; throws its failure if it failed. */
  async result(id: string): Promise<unknown> {
    try {
      return await this.temporal.workflow.getHandle(id).result();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new JobNotFoundError(id);
      throw err;
    }
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}
