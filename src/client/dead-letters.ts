import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Catalog } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import { deadLetterShardOf, deadLetterShardWorkflowId, deadLetterWorkflowIds, jobTypeOfDeadLetterWorkflow } from '../catalog/dead-letter-shards';
import { deadLetterWorkflowId } from '../catalog/dead-letter';
import { ErrorType, InvalidOptionError, JobsError, describeError } from '../shared/errors';
import { discardUpdate, redriveUpdate, type RedriveResult } from '../workflow-kit/dead-letter';
import { compareEntries, type DeadLetterEntry, type DeadLetterFilter, type DeadLetterGroup, type DeadLetterStatus } from '../workflow-kit/dead-letter-entries';
import { validateRedrivePayload } from '../catalog/validate';
import { callDeadLetterWorkflow, DeadLetterBusyError } from './dead-letter-calls';
import { DeadLetterUnappliedError, DeadLetterWorkerCheck } from './dead-letter-worker-check';
import { entrySensitive } from './masked-entry';
import { maskSensitive } from '../catalog/sensitive';
import { quoteQueryValue } from './job-list';
import { decodeCursor, encodeCursor, readCounts, readEntries, readGroups, type LocatedEntry } from './dead-letter-reads';
import type { DeadLetterListOptions, DeadLetterListPage, DiscardOptions, RedriveOptions } from './dead-letter-options';
import { bulkDiscard, bulkRedrive, type BulkOptions, type DeadLetterSelection, type DiscardOutcome, type RedriveOutcome } from './dead-letter-bulk';

export type { BulkOptions, DeadLetterSelection, DiscardOutcome, RedriveOutcome };

/** Longest `by` an audit record keeps: a name, not a document. */
export const maxActorLength = 200;

/** Refuses a `by` that is empty or too long, naming the option, before anything is changed. */
function checkActor(by: string | undefined): void {
  if (by !== undefined && (typeof by !== 'string' || by.length === 0 || by.length > maxActorLength)) {
    throw new InvalidOptionError([{ path: 'by', message: `must be a name of 1 to ${maxActorLength} characters, got ${JSON.stringify(by)?.slice(0, 60)}` }]);
  }
}

/** A dead-letter operation was refused: no such entry, or not in a state it applies to. */
export class DeadLetterError extends JobsError {}

export type { DeadLetterListOptions, DeadLetterListPage, DiscardOptions, RedriveOptions } from './dead-letter-options';

/**
 * The operator's view of the dead-letter queues (one set of shard workflows per job type): list,
 * page, group, show, redrive and discard. Reads fold the DLQ workflows' histories, so they need no
 * worker (dead-letter-history.ts); a redrive or discard is an update, which needs one, and says at
 * once when none answers.
 */
export class DeadLetterQueue {
  private readonly workerCheck: DeadLetterWorkerCheck;

  constructor(
    private readonly client: Client,
    /** The task queue whose DLQs these are. */
    private readonly taskQueue: string,
    /** The job types, for validating a redrive's patch and masking sensitive fields; without it the DLQs are read from Temporal and a patch is refused. */
    readonly catalog?: Catalog,
  ) {
    this.workerCheck = new DeadLetterWorkerCheck(client, taskQueue);
  }

  /** The job types whose DLQs to read: the one asked for, the catalog's, or those whose DLQ is running. */
  async types(type?: string): Promise<string[]> {
    if (type !== undefined) return [type];
    if (this.catalog) return [...this.catalog.types];
    const query = `WorkflowType = 'deadLetterWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = ${quoteQueryValue(this.taskQueue)}`;
    const found = new Set<string>();
    for await (const w of this.client.workflow.list({ query })) {
      const t = jobTypeOfDeadLetterWorkflow(this.taskQueue, w.workflowId);
      if (t) found.add(t);
    }
    return [...found].sort();
  }

  /** Every entry the options select across the selected DLQs, oldest failure first, read a page at a time. */
  async *entries(options: DeadLetterListOptions = {}): AsyncGenerator<DeadLetterEntry> {
    for await (const { entry } of this.located(options)) yield entry;
  }

  /** One page of entries, oldest failure first, and the cursor of the next. */
  async page(options: DeadLetterListOptions = {}): Promise<DeadLetterListPage> {
    const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
    const entries: DeadLetterEntry[] = [];
    let more = false;
    for await (const { entry } of this.located(options)) {
      if (entries.length === limit) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    const last = entries.at(-1);
    return more && last ? { entries, nextCursor: encodeCursor(last) } : { entries };
  }

  /** The entries the options select, oldest failure first: all of them, or the first `limit`. Prefer {@link page} or {@link entries} for a large DLQ. */
  async list(options: DeadLetterListOptions = {}): Promise<DeadLetterEntry[]> {
    const entries: DeadLetterEntry[] = [];
    for await (const entry of this.entries(options)) {
      if (options.limit !== undefined && entries.length >= options.limit) break;
      entries.push(entry);
    }
    return entries;
  }

  /** Dead-lettered entries counted per fingerprint, across the selected DLQs and their shards, largest first. */
  async groups(type?: string): Promise<(DeadLetterGroup & { type: string })[]> {
    return readGroups(this.client, this.taskQueue, await this.types(type));
  }

  /** Entries counted by status, per job type. */
  async counts(): Promise<Record<string, Record<DeadLetterStatus, number>>> {
    const types = await this.types();
    return Object.fromEntries(await Promise.all(types.map(async (t) => [t, await readCounts(this.client, this.taskQueue, t)] as const)));
  }

  /** The entry of a job, whatever its status, looked up in `type`'s DLQ (or every type's). Throws `jobs:dlq-entry-not-found` if none has it. */
  async show(id: string, type?: string): Promise<DeadLetterEntry> {
    return (await this.locate(id, type)).entry;
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
    checkActor(options.by);
    const located = await this.locate(id);
    this.patchedPayload(located.entry, options.patch);
    return this.restart(located, options);
  }

  /**
   * Redrives the given entries one by one, at most `ratePerSecond` a second, after validating every
   * patched payload (a bad patch restarts nothing). For a whole group or DLQ, {@link redriveAll}
   * streams instead of holding the entries.
   */
  async redriveMany(entries: DeadLetterEntry[], options: RedriveOptions & Omit<BulkOptions, 'reason'> = {}): Promise<RedriveOutcome[]> {
    checkActor(options.by);
    const outcomes: RedriveOutcome[] = [];
    // Each entry is found where it lives (its shard, or the unsharded DLQ of 0.2), as `redrive` finds it.
    const locate = (e: DeadLetterEntry) => this.locate(e.id, e.type);
    async function* located() {
      for (const e of entries) yield await locate(e);
    }
    for await (const o of bulkRedrive(this.bulkTarget(), located, options)) outcomes.push(o);
    return outcomes;
  }

  /**
   * Redrives every dead-lettered entry the selection names that failed before the call (a job that
   * fails again meanwhile is not chased), streaming outcomes as they happen. With `dryRun`, yields
   * the plan and changes nothing. A patch is checked against every entry before the first restart.
   */
  redriveAll(selection: DeadLetterSelection, options: RedriveOptions & Omit<BulkOptions, 'reason'> = {}): AsyncGenerator<RedriveOutcome> {
    checkActor(options.by);
    return bulkRedrive(this.bulkTarget(), (snapshot) => this.located({ ...selection, status: 'dead-lettered', failedBefore: selection.failedBefore ?? snapshot }), options);
  }

  /**
   * Gives up on a dead-lettered job; the entry stays, marked discarded, with the reason (and who
   * discarded it) in its audit trail. A string is the reason alone, as before 0.4.
   */
  async discard(id: string, options: DiscardOptions | string = {}): Promise<DeadLetterEntry> {
    const { reason, by } = typeof options === 'string' ? { reason: options, by: undefined } : options;
    checkActor(by);
    const located = await this.locate(id);
    return this.bulkTarget().discard(located, { reason, by });
  }

  /** Discards every dead-lettered entry the selection names that failed before the call, streaming outcomes. */
  discardAll(selection: DeadLetterSelection, options: BulkOptions = {}): AsyncGenerator<DiscardOutcome> {
    checkActor(options.by);
    return bulkDiscard(this.bulkTarget(), (snapshot) => this.located({ ...selection, status: 'dead-lettered', failedBefore: selection.failedBefore ?? snapshot }), options);
  }

  private bulkTarget() {
    return {
      patchedPayload: (entry: DeadLetterEntry, patch: unknown) => this.patchedPayload(entry, patch),
      shown: (entry: DeadLetterEntry, payload: unknown) => maskSensitive(payload, entrySensitive(entry, this.catalog)),
      restart: (located: LocatedEntry, options: RedriveOptions) => this.restart(located, options),
      discard: (located: LocatedEntry, { reason, by }: DiscardOptions) =>
        this.update(located.workflowId, (h, updateId) => h.executeUpdate(discardUpdate, { args: [{ id: located.entry.id, reason, by, requestId: updateId }], updateId })),
    };
  }

  private async *located(options: DeadLetterListOptions): AsyncGenerator<LocatedEntry> {
    const { type, cursor, status, fingerprint, id, failedBefore, failedAfter } = options;
    const filter: DeadLetterFilter = { status, fingerprint, id, failedBefore, failedAfter };
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const workflowIds = (await this.types(type)).flatMap((t) => deadLetterWorkflowIds(this.taskQueue, t));
    yield* readEntries(this.client, workflowIds, filter, { after });
  }

  /** The newest entry of a job across the DLQs of `type` (or every type): its shard, and the unsharded DLQ of older releases. */
  private async locate(id: string, type?: string): Promise<LocatedEntry> {
    const workflowIds = (await this.types(type)).flatMap((t) => [deadLetterWorkflowId(this.taskQueue, t), deadLetterShardWorkflowId(this.taskQueue, t, deadLetterShardOf(id))]);
    let found: LocatedEntry | undefined;
    for await (const located of readEntries(this.client, workflowIds, { id, status: 'all' })) if (!found || compareEntries(found.entry, located.entry) < 0) found = located;
    if (!found) throw new DeadLetterError(ErrorType.DlqEntryNotFound, `no dead-letter entry for job "${id}"`);
    return found;
  }

  /** Sends the redrive update; the patch has been validated. */
  private restart({ entry, workflowId }: LocatedEntry, options: RedriveOptions): Promise<RedriveResult> {
    // The audit trail records the patch with its sensitive fields masked: that one changed, never to what.
    const masked = options.patch === undefined ? undefined : maskSensitive(options.patch, entrySensitive(entry, this.catalog));
    const auditPatch = masked !== undefined && JSON.stringify(masked) !== JSON.stringify(options.patch) ? { auditPatch: masked } : {};
    return this.update(workflowId, (h, updateId) => h.executeUpdate(redriveUpdate, { args: [{ id: entry.id, patch: options.patch, reason: options.reason, by: options.by, ...auditPatch, requestId: updateId }], updateId }));
  }

  private async update<T>(workflowId: string, run: (h: ReturnType<Client['workflow']['getHandle']>, updateId: string) => Promise<T>): Promise<T> {
    // Only a worker applies an update: without one, say so now and send nothing (DeadLetterNoWorkerError).
    await this.workerCheck.assert(workflowId);
    // One update ID across the retries: a retry of an update that did land returns its result.
    const updateId = randomUUID();
    // A worker that died in the last 20 s passes the check, and the server would hold the update
    // for as long as none polls: it is waited for while a worker polls, and the error says what
    // may still happen once none does.
    try {
      return await this.workerCheck.whileWorkersPoll(workflowId, (signal) => this.client.withAbortSignal(signal, () => callDeadLetterWorkflow(this.client, workflowId, (h) => run(h, updateId))));
    } catch (err) {
      if (err instanceof DeadLetterUnappliedError) throw err;
      const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
      if (cause instanceof ApplicationFailure) throw new DeadLetterError((cause.type as typeof ErrorType.DlqInvalidState) ?? ErrorType.DlqInvalidState, cause.message, { cause });
      if (err instanceof DeadLetterBusyError) throw new DeadLetterError(ErrorType.DlqBusy, err.detail, { cause: err });
      throw new DeadLetterError(ErrorType.DlqInvalidState, describeError(err), { cause: err });
    }
  }
}
