import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Catalog } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import { deadLetterWorkflowId } from '../catalog/dead-letter';
import { ErrorType, JobsError, describe } from '../shared/errors';
import {
  deadLetterCountsQuery,
  deadLetterEntriesQuery,
  deadLetterGroupsQuery,
  discardUpdate,
  redriveUpdate,
  type RedriveResult,
} from '../workflow/dead-letter';
import type { DeadLetterEntry, DeadLetterFilter, DeadLetterGroup, DeadLetterStatus } from '../workflow/dead-letter-entries';
import { validateRedrivePayload } from '../catalog/validate';

/** A dead-letter operation was refused: no such entry, or not in a state it applies to. */
export class DeadLetterError extends JobsError {}

/** gRPC NOT_FOUND: this type's DLQ has never been started, so it holds nothing. */
const GRPC_NOT_FOUND = 5;

/** Options of {@link DeadLetterQueue.list}. */
export interface DeadLetterListOptions extends DeadLetterFilter {
  /** Only this job type's DLQ. @defaultValue every type: the catalog's, or without one every DLQ running on the task queue */
  type?: string;
}

/** What came of redriving one entry. */
export interface RedriveOutcome {
  id: string;
  type: string;
  /** The payload it was (or would be) started with. */
  payload: unknown;
  /** The run started, when it was. */
  runId?: string;
  /** When the restart was made (ISO 8601). */
  startedAt?: string;
  /** Why it was not redriven. */
  error?: string;
  /** True for a dry run: nothing was changed. */
  dryRun?: boolean;
}

/** Options of {@link DeadLetterQueue.redrive}. */
export interface RedriveOptions {
  /** JSON Merge Patch applied to the payload; validated against the type's schema first. */
  patch?: unknown;
  /** Why, for the audit trail. */
  reason?: string;
}

/**
 * The operator's view of the dead-letter queues (one workflow per job type): list, group, show,
 * redrive and discard, through the DLQ workflows' queries and updates.
 */
export class DeadLetterQueue {
  constructor(
    private readonly client: Client,
    /** The task queue whose DLQs these are. */
    private readonly taskQueue: string,
    /** The job types, for validating a redrive's patch; without it the DLQs are read from Temporal and a patch is refused. */
    private readonly catalog?: Catalog,
  ) {}

  /** The job types whose DLQs to read: the one asked for, the catalog's, or those whose DLQ is running. */
  async types(type?: string): Promise<string[]> {
    if (type !== undefined) return [type];
    if (this.catalog) return [...this.catalog.types];
    const prefix = deadLetterWorkflowId(this.taskQueue, '');
    const query = `WorkflowType = 'deadLetterWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${this.taskQueue.replace(/['\\]/g, '\\$&')}'`;
    const found = new Set<string>();
    for await (const w of this.client.workflow.list({ query })) if (w.workflowId.startsWith(prefix)) found.add(w.workflowId.slice(prefix.length));
    return [...found].sort();
  }

  /** Entries across the selected DLQs, oldest failure first. */
  async list(options: DeadLetterListOptions = {}): Promise<DeadLetterEntry[]> {
    const { type, ...filter } = options;
    const lists = await Promise.all((await this.types(type)).map((t) => this.query(t, (h) => h.query(deadLetterEntriesQuery, filter), [])));
    return lists.flat().sort((a, b) => (a.lastFailedAt < b.lastFailedAt ? -1 : a.lastFailedAt > b.lastFailedAt ? 1 : 0));
  }

  /** Dead-lettered entries counted per fingerprint, across the selected DLQs, largest first. */
  async groups(type?: string): Promise<(DeadLetterGroup & { type: string })[]> {
    const lists = await Promise.all(
      (await this.types(type)).map(async (t) => (await this.query(t, (h) => h.query(deadLetterGroupsQuery), [])).map((g) => ({ ...g, type: t }))),
    );
    return lists.flat().sort((a, b) => b.count - a.count);
  }

  /** Entries counted by status, per job type. */
  async counts(): Promise<Record<string, Record<DeadLetterStatus, number>>> {
    const empty = { 'dead-lettered': 0, redriving: 0, redriven: 0, discarded: 0 };
    const rows = await Promise.all((await this.types()).map(async (t) => [t, await this.query(t, (h) => h.query(deadLetterCountsQuery), empty)] as const));
    return Object.fromEntries(rows);
  }

  /** The entry of a job, whatever its status. Throws `jobs:dlq-entry-not-found` if no DLQ has it. */
  async show(id: string): Promise<DeadLetterEntry> {
    const [entry] = await this.list({ id, status: 'all' });
    if (!entry) throw new DeadLetterError(ErrorType.DlqEntryNotFound, `no dead-letter entry for job "${id}"`);
    return entry;
  }

  /**
   * The payload a redrive would start `entry` with: its own, or patched. Throws
   * `jobs:invalid-payload` naming the field when the patched payload fails the type's schema.
   */
  patchedPayload(entry: DeadLetterEntry, patch: unknown): unknown {
    if (patch === undefined) return entry.payload;
    if (!this.catalog) throw new NoCatalogError('a redrive with a patch');
    return validateRedrivePayload(this.catalog, entry.type, entry.payload, patch);
  }

  /** Starts a dead-lettered job again under its own ID. The patch is validated before anything restarts. */
  async redrive(id: string, options: RedriveOptions = {}): Promise<RedriveResult> {
    const entry = await this.show(id);
    this.patchedPayload(entry, options.patch);
    return this.restart(entry, options);
  }

  /** Sends the redrive update; the patch has been validated. */
  private restart(entry: DeadLetterEntry, options: RedriveOptions): Promise<RedriveResult> {
    return this.update(entry.type, (h) => h.executeUpdate(redriveUpdate, { args: [{ id: entry.id, patch: options.patch, reason: options.reason }] }));
  }

  /**
   * Redrives several entries: validates every patched payload first (a bad patch restarts nothing),
   * then restarts them one by one, at most `ratePerSecond` a second. A failed restart is reported
   * in its outcome and does not stop the rest. With `dryRun`, returns the plan and changes nothing.
   */
  async redriveMany(entries: DeadLetterEntry[], options: RedriveOptions & { ratePerSecond?: number; dryRun?: boolean } = {}): Promise<RedriveOutcome[]> {
    const plan = entries.map((entry) => ({ entry, payload: this.patchedPayload(entry, options.patch) }));
    if (options.dryRun) return plan.map(({ entry, payload }) => ({ id: entry.id, type: entry.type, payload, dryRun: true }));
    const outcomes: RedriveOutcome[] = [];
    for (const [i, { entry, payload }] of plan.entries()) {
      if (i > 0 && options.ratePerSecond) await sleep(1000 / options.ratePerSecond);
      try {
        const { runId } = await this.restart(entry, options);
        outcomes.push({ id: entry.id, type: entry.type, payload, runId, startedAt: new Date().toISOString() });
      } catch (err) {
        outcomes.push({ id: entry.id, type: entry.type, payload, error: describe(err) });
      }
    }
    return outcomes;
  }

  /** Gives up on a dead-lettered job; the entry stays, marked discarded, with the reason in its audit trail. */
  async discard(id: string, reason?: string): Promise<DeadLetterEntry> {
    const entry = await this.show(id);
    return this.update(entry.type, (h) => h.executeUpdate(discardUpdate, { args: [{ id, reason }] }));
  }

  private handle(type: string) {
    return this.client.workflow.getHandle(deadLetterWorkflowId(this.taskQueue, type));
  }

  private async query<T>(type: string, run: (h: ReturnType<DeadLetterQueue['handle']>) => Promise<T>, empty: T): Promise<T> {
    try {
      return await run(this.handle(type));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) return empty;
      throw err;
    }
  }

  private async update<T>(type: string, run: (h: ReturnType<DeadLetterQueue['handle']>) => Promise<T>): Promise<T> {
    try {
      return await run(this.handle(type));
    } catch (err) {
      const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
      if (cause instanceof ApplicationFailure) throw new DeadLetterError((cause.type as typeof ErrorType.DlqInvalidState) ?? ErrorType.DlqInvalidState, cause.message, { cause });
      throw new DeadLetterError(ErrorType.DlqInvalidState, describe(err), { cause: err });
    }
  }
}
