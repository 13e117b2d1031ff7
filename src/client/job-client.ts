import type { Kysely } from 'kysely';
import { Client, Connection, isGrpcServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import type { z } from 'zod';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import { readCreatedAt } from '../catalog/created-at';
import { loadConfig, type Config } from '../shared/config';
import { JobClosedError, JobNotFoundError, JobNotStartedError, UnreachableError } from '../shared/errors';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { dataConverterFor } from '../shared/data-converter';
import { connectionOptions } from '../shared/temporal-connection';
import { cancelRequestedSignal, jobStateMemoKey, jobStateQuery, type JobState } from '../workflow-kit/job-state';
import { DeadLetterQueue } from './dead-letters';
import { decodingOf } from './decode';
import { checkSameJob } from './existing-job';
import { assembleRecord } from './record-assembly';
import { firstEvent, historyTail } from './history';
import { needsLastStep } from './closed-state-read';
import { listJobs, type ListJobsOptions, type JobSummary } from './job-list';
import { cancelReport, jobStatusName, type JobRecord } from './job-record';
import { JobSchedules } from './schedules';
import { JobPauses } from './job-pauses';
import { JobBreakers } from './breakers';
import { startJob } from '../catalog/start-job';
import { prepareJob, type PreparedJob } from '../catalog/prepare-job';
import { enqueueDebounced, pendingDebounceWindow, pendingDebouncedRecord } from './debounce';
import { enqueueDeduped } from './dedupe';
import { prepareMany, startMany, type EnqueueManyItem, type EnqueueManyOptions, type EnqueueManyResult } from './enqueue-many';
import { clientTracingInterceptors } from './tracing';
import { stateQueryTimeoutMs } from './state-query-timeout';
import type { EnqueueOptions, EnqueueResult, JobClientConnectOptions, JobClientOptions } from './client-options';
import type { OutboxEnqueueResult } from '../outbox/enqueue-in-transaction';

/** gRPC status NOT_FOUND: the workflow vanished between two calls (e.g. retention expired). */
const GRPC_NOT_FOUND = 5;

export { stateQueryTimeoutMs };
export type { EnqueueOptions, EnqueueResult, JobClientConnectOptions, JobClientOptions } from './client-options';

/**
 * The typed API for enqueueing jobs and reading them back. Typed by its catalog's payload schemas
 * (`S`, generics, as BullMQ's `Queue<Data>`): `enqueue('charge-subscription', …)` infers the
 * payload's type, and a type the catalog lacks is a compile error. Generics rather than declaration
 * merging, because one process may hold clients of several catalogs (two services' job types, or
 * none for an operator tool), and merging would give them all one global type.
 */
export class JobClient<S extends PayloadSchemas = PayloadSchemas> {
  /** The dead-letter queues: list, inspect, redrive and discard jobs that failed for good. */
  readonly deadLetters: DeadLetterQueue;
  /** Recurring jobs: create, list, pause, unpause, trigger and delete schedules. */
  readonly schedules: JobSchedules<S>;
  /** Paused job types: pause, resume and list them (`jobctl pause`); a paused type's jobs are accepted and wait. */
  readonly pauses: JobPauses;
  /** The dependencies' circuit breakers: read them, order one open or closed (`jobctl breaker`). */
  readonly breakers: JobBreakers;

  constructor(
    /** The Temporal client underneath. */
    readonly temporal: Client,
    private readonly config: Pick<Config, 'taskQueue'> & JobClientOptions<S>,
  ) {
    this.deadLetters = new DeadLetterQueue(temporal, config.taskQueue, config.catalog);
    this.schedules = new JobSchedules(temporal, config.taskQueue, config.catalog);
    this.pauses = new JobPauses(temporal, config.taskQueue, config.catalog);
    this.breakers = new JobBreakers(temporal, config.taskQueue, config.catalog);
  }

  /** The catalog given, if any. */
  get catalog(): Catalog<S> | undefined {
    return this.config.catalog;
  }

  /** The deployment's shared task queue: jobs of types without a queue of their own run on it, and so do the DLQs. */
  get taskQueue(): string {
    return this.config.taskQueue;
  }

  /** Connects using the configuration (explicit options > env vars > defaults). */
  static async connect<S extends PayloadSchemas = PayloadSchemas>(options: JobClientConnectOptions<S> = {}): Promise<JobClient<S>> {
    const { catalog, eagerStart, tracing, ...overrides } = options;
    const config = loadConfig(overrides);
    const connection = connectionOptions(config);
    let opened: Connection;
    try {
      opened = await Connection.connect({ ...connection, connectTimeout: '5s' });
    } catch (err) {
      throw new UnreachableError(connection.address, err);
    }
    const interceptors = clientTracingInterceptors(tracing);
    const client = new Client({ connection: opened, namespace: config.namespace, dataConverter: dataConverterFor(config), ...(interceptors ? { interceptors: { workflow: interceptors } } : {}) });
    return new JobClient<S>(client, { taskQueue: config.taskQueue, catalog, eagerStart });
  }

  /**
   * Validates the payload, then starts the job. Nothing reaches Temporal unless the type, payload
   * and options are all valid. Enqueueing an existing job ID with the same payload is idempotent.
   */
  async enqueue<T extends keyof S & string>(type: T, payload: z.input<S[T]>, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { catalog } = this.config;
    if (!catalog) throw new NoCatalogError('enqueue');
    return this.start(prepareJob(catalog, type, payload, options));
  }

  /**
   * Validates every item, then starts them with bounded concurrency; the result says per item
   * started, existed, conflict (or invalid, with `skipInvalid`). Nothing starts if any item is
   * invalid: {@link InvalidItemsError} names them all. Idempotent by ID: run again after an
   * interruption, it starts only the items that are missing.
   */
  async enqueueMany<T extends keyof S & string>(type: T, items: readonly EnqueueManyItem<z.input<S[T]>>[], options: EnqueueManyOptions = {}): Promise<EnqueueManyResult> {
    const { catalog } = this.config;
    if (!catalog) throw new NoCatalogError('enqueueMany');
    return startMany((job) => this.start(job), type, prepareMany(catalog, type, items, options), options);
  }

  /**
   * Validates the job as {@link enqueue} does (the same errors, the same job ID) and writes it to
   * the outbox of the jobs database in `trx`, your own Kysely transaction (PostgreSQL or SQLite):
   * the job is part of your commit. Nothing reaches Temporal until the transaction commits, and a
   * rollback leaves no job; the worker's relay then starts it, exactly once (docs/guide/outbox.md).
   * A `trx` that is not a transaction, and `debounce` or `dedupe`, are refused (`jobs:invalid-option`).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- your database's tables
  async enqueueInTransaction<T extends keyof S & string>(trx: Kysely<any>, type: T, payload: z.input<S[T]>, options: EnqueueOptions = {}): Promise<OutboxEnqueueResult> {
    const { catalog } = this.config;
    if (!catalog) throw new NoCatalogError('enqueueInTransaction');
    // Loaded on first use: a client that never writes to the outbox does not load Kysely.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const outbox = require('../outbox/enqueue-in-transaction') as typeof import('../outbox/enqueue-in-transaction');
    return outbox.enqueueInTransaction(trx, catalog, type, payload, options);
  }

  /**
   * Starts a job that {@link prepareJob} validated (jobctl validates before it connects): what
   * `enqueue` does after its checks. Idempotent like `enqueue`.
   */
  async start(job: PreparedJob): Promise<EnqueueResult> {
    if (job.debounce) return enqueueDebounced(this.temporal, this.config.taskQueue, { ...job, debounce: job.debounce });
    if (job.dedupe) return enqueueDeduped(this.temporal, this.config.taskQueue, { ...job, dedupe: job.dedupe }, (plain) => this.start(plain));
    const { definition, id, payload: parsed, delayMs, priority, fairness } = job;
    try {
      // A job of a paused type starts knowing it (read once a second per type; src/client/job-pauses.ts).
      const paused = await this.pauses.forEnqueue(definition.type);
      const handle = await startJob(this.temporal, { definition, id, payload: parsed, taskQueue: this.config.taskQueue, delayMs, priority, fairness, mode: 'enqueue', eager: this.config.eagerStart, paused });
      return { id, existed: false, handle };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw missingSearchAttributeIn(err, this.temporal.options.namespace) ?? err;
      const handle = this.temporal.workflow.getHandle(id);
      checkSameJob(await handle.describe(), job, this.config.catalog);
      return { id, existed: true, handle };
    }
  }

  /** Reads a job back from Temporal. Throws {@link JobNotFoundError} for an unknown ID. */
  async get(id: string): Promise<JobRecord> {
    try {
      return await this.record(id);
    } catch (err) {
      // A debounced job that has not started yet is reported from its window.
      const pending = err instanceof JobNotFoundError ? await pendingDebouncedRecord(this.temporal, id, this.config.catalog) : undefined;
      if (!pending) throw err;
      // Its window closed meanwhile: the job may be there now.
      return pending.debounce?.closed ? this.record(id).catch(() => pending) : pending;
    }
  }

  private async record(id: string): Promise<JobRecord> {
    return this.notFoundAs(id, async () => {
      const handle = this.temporal.workflow.getHandle(id);
      // describe() first: it turns an unknown ID into WorkflowNotFoundError; history reads do not.
      const description = await handle.describe();
      const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
      const [start, tail, state] = await Promise.all([
        firstEvent(this.temporal, id, firstRunId),
        historyTail(this.temporal, id, description.runId, needsLastStep(description)),
        this.jobState(handle, description),
      ]);
      return assembleRecord({ description, start, tail, state }, decodingOf(this.temporal), this.config.catalog);
    });
  }

  /**
   * When a job was first enqueued, redrives included: what {@link get} reports as `createdAt`, read
   * with two calls instead of the whole record. Throws {@link JobNotFoundError} for an unknown ID.
   */
  async createdAt(id: string): Promise<string> {
    return this.notFoundAs(id, async () => (await readCreatedAt(this.temporal, id)).toISOString());
  }

  /** Whether a job is still running (its latest run), read with one call. Throws {@link JobNotFoundError} for an unknown ID. */
  async isRunning(id: string): Promise<boolean> {
    return this.notFoundAs(id, async () => (await this.temporal.workflow.getHandle(id).describe()).status.name === 'RUNNING');
  }

  /** Waits for a job to finish and returns its result; throws its failure if it failed. */
  async result(id: string): Promise<unknown> {
    return this.notFoundAs(id, () => this.temporal.workflow.getHandle(id).result());
  }

  /**
   * Asks a job to stop. Its current attempt is cancelled, completed steps are compensated, and the
   * job ends as cancelled (not dead-lettered). Throws {@link JobClosedError} for a job that has
   * already finished, and {@link JobNotStartedError} for a debounced job whose window is still open.
   */
  async cancel(id: string): Promise<void> {
    await this.notFoundAs(id, async () => {
      const handle = this.temporal.workflow.getHandle(id);
      const description = await handle.describe();
      if (description.status.name !== 'RUNNING') throw new JobClosedError(id, jobStatusName(description.status.name));
      // Cancelled while it waits to retry, the activity leaves no attempt in the history: the job keeps what it had done.
      const report = cancelReport(description);
      if (report && report.attempts > 0) await handle.signal(cancelRequestedSignal, report);
      await handle.cancel();
    }).catch(async (err: unknown) => {
      const window = err instanceof JobNotFoundError ? await pendingDebounceWindow(this.temporal, id) : undefined;
      throw window && !window.closed ? new JobNotStartedError(id, window.firesAt) : err;
    });
  }

  /** Lists jobs from Temporal's visibility store, newest first. */
  async list(options: ListJobsOptions = {}): Promise<JobSummary[]> {
    return listJobs(this.temporal, options, this.config.catalog);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }

  /** The job's own report: its memo once closed, its query while it runs (skipped if no worker answers soon). */
  private async jobState(handle: WorkflowHandle, description: WorkflowExecutionDescription): Promise<JobState | 'unanswered' | undefined> {
    const memo = description.memo?.[jobStateMemoKey] as JobState | undefined;
    if (memo || description.status.name !== 'RUNNING' || description.historyLength <= 1) return memo;
    try {
      return await this.temporal.withDeadline(Date.now() + stateQueryTimeoutMs, () => handle.query(jobStateQuery));
    } catch {
      return 'unanswered';
    }
  }

  private async notFoundAs<T>(id: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw new JobNotFoundError(id);
      throw err;
    }
  }
}
