/**
 * The `generate-report` activities: aggregate ledger entries page by page into a report file.
 *
 * `aggregateReportPages` reads up to `pagesPerBatch` pages of entries (ordered by created_at,
 * payment_id, leg), heartbeating `{ done, total, cursor }` after each page, and returns where it
 * stopped; the workflow calls it again until it returns the finished report, and shows `done/total`
 * as the job's progress between calls.
 *
 * Checkpoint: the partial aggregate lives in a temporary file next to the report,
 * `<report>.<tag>.partial`, one JSON line per page (that page's per-account sums and the cursor after
 * it). A new attempt takes the cursor from the last heartbeat details (else from its input, where the
 * previous batch ended), folds the lines up to that cursor and goes on from there, never re-reading
 * those pages; each batch starts by rewriting the file as one folded line, so it stays small, and an
 * attempt the server gave up on keeps writing only to the file it replaced. If the cursor is not in
 * the file (another machine, a deleted file), the report starts over. When the last page is in, the
 * report is written as `<report>.<tag>.tmp` and renamed to its final name: a file under the final name
 * is the finished report, which a repeated attempt returns without reading anything.
 *
 * A cancelled attempt (the job was cancelled) deletes its temporary files and throws the cancellation.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { Db } from '../jobs/database/schema';
import { GenerateReportErrorType, type GenerateReportPayload, type GenerateReportResult } from '../jobs/generate-report';
import { generateReportPayload } from '../jobs/payloads/generate-report';
import { describeError, diskFullFailure, nonRetryable, writeFileAtomic } from '../activity-kit';
import type { ActivityDeps } from './deps';
import { add, lineOf, loadCheckpoint, render, summarise, type Aggregate, type Period, type ReportCursor, type ReportHeartbeat } from './report-file';

export type { ReportCursor, ReportHeartbeat } from './report-file';
import { parseJobPayload } from '../activity-kit';
import { currentJob } from '../activity-kit';

/**
 * Input of `aggregateReportPages` and `discardReportFiles`. The job's ID, from which the default
 * file name and the temporary files' tag derive, is the attempt's (`currentJob`).
 */
export interface ReportPagesInput {
  /** The job's payload, validated again here. */
  payload: unknown;
  /** Where the previous batch stopped. @defaultValue the start of the period */
  after?: ReportHeartbeat;
}

/** What one batch did: its progress, and the report once the last page is in. */
export interface ReportPagesResult extends ReportHeartbeat {
  /** Set when the report is finished. */
  report?: GenerateReportResult;
}

/** One page folded in; passed to {@link ReportsOptions.afterPage}. */
export interface ReportPageEvent {
  /** The attempt that read it. */
  attempt: number;
  /** Entries on the page. */
  entries: number;
  /** Progress after the page, as heartbeated. */
  progress: ReportHeartbeat;
}

/** Tuning of the reports activities. */
export interface ReportsOptions {
  /** Entries per page. @defaultValue 500 */
  pageSize?: number;
  /** Pages per `aggregateReportPages` call, i.e. how often the job's progress moves. @defaultValue 20 */
  pagesPerBatch?: number;
  /** Called after each page is checkpointed and heartbeated (tests, tracing). @defaultValue none */
  afterPage?: (event: ReportPageEvent) => Promise<void> | void;
}

/** File-name stem for a job without `name`: every character outside `A-Za-z0-9-` escaped as `_xx` (UTF-8 bytes), long IDs hashed. */
export function defaultReportStem(jobId: string): string {
  const escaped = Array.from(Buffer.from(jobId, 'utf8'), (b) => (/[A-Za-z0-9-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `_${b.toString(16).padStart(2, '0')}`)).join('');
  return `report-${escaped.length <= 93 ? escaped : `${escaped.slice(0, 76)}-${sha(jobId).slice(0, 16)}`}`;
}

/** File name of a job's finished report. */
export function reportFileName(jobId: string, payload: GenerateReportPayload): string {
  return `${payload.name ?? defaultReportStem(jobId)}.${payload.format}`;
}

/** Builds the reports activities. */
export function createReportsActivities(deps: ActivityDeps, options: ReportsOptions = {}) {
  const pageSize = options.pageSize ?? 500;
  const pagesPerBatch = options.pagesPerBatch ?? 20;

  async function aggregate(input: ReportPagesInput): Promise<ReportPagesResult> {
    const ctx = Context.current();
    const payload = parsePayload(input.payload);
    const { jobId } = currentJob();
    const files = filesOf(deps.reportsDir, jobId, payload);
    const existing = await readFile(files.final, 'utf8').catch(() => undefined);
    if (existing !== undefined) {
      await removeTemporaryFiles(deps.reportsDir, files.prefix);
      const { rows, entries } = summarise(existing, payload.format);
      return { done: entries, total: entries, report: { path: files.final, format: payload.format, rows, entries, alreadyExisted: true } };
    }
    const period = { from: new Date(payload.from).toISOString(), to: new Date(payload.to).toISOString(), accounts: payload.accounts };
    const targets = [ctx.info.heartbeatDetails as ReportHeartbeat | undefined, input.after].filter((t): t is ReportHeartbeat => t?.cursor !== undefined);
    const start = targets.length ? await loadCheckpoint(files.partial, targets) : { done: 0, rows: new Map() as Aggregate };
    if (!start.cursor && targets.length) ctx.log.warn('report:checkpoint-lost', { jobId, file: files.partial });
    const progress: ReportHeartbeat = { done: start.done, total: targets[0]?.total ?? (await countEntries(deps.db, period)), cursor: start.cursor };
    const rows = start.rows;
    ctx.heartbeat({ ...progress });

    const checkpoint = await fsStep(deps.reportsDir, async () => {
      await mkdir(deps.reportsDir, { recursive: true });
      const handle = await open(`${files.partial}.next`, 'w');
      if (progress.cursor) await handle.write(lineOf(progress, [...rows]));
      await rename(`${files.partial}.next`, files.partial);
      return handle;
    });
    try {
      for (let page = 0; page < pagesPerBatch; page++) {
        throwIfCancelled();
        const entries = await readPage(deps.db, period, progress.cursor, pageSize);
        const delta: Aggregate = new Map();
        for (const e of entries) {
          for (const into of [rows, delta]) add(into, `${e.account_id}\n${e.currency}`, Number(e.amount));
        }
        const last = entries.at(-1);
        if (last) {
          progress.cursor = { createdAt: last.created_at, paymentId: last.payment_id, leg: last.leg };
          progress.done += entries.length;
          await fsStep(deps.reportsDir, () => checkpoint.write(lineOf(progress, [...delta])));
          ctx.heartbeat({ ...progress });
          await options.afterPage?.({ attempt: ctx.info.attempt, entries: entries.length, progress: { ...progress } });
        }
        if (entries.length < pageSize) {
          const content = render(payload, period, progress.done, rows);
          await fsStep(deps.reportsDir, () => writeFileAtomic(files.final, content, { tmp: files.tmp }));
          await removeTemporaryFiles(deps.reportsDir, files.prefix);
          return { ...progress, report: { path: files.final, format: payload.format, rows: rows.size, entries: progress.done, alreadyExisted: false } };
        }
      }
      return progress;
    } catch (err) {
      // Only a cancelled job cleans up: an attempt that failed or timed out leaves the checkpoint for the next.
      if (ctx.cancellationDetails?.cancelRequested) await removeTemporaryFiles(deps.reportsDir, files.prefix);
      throw err;
    } finally {
      await checkpoint.close();
    }
  }

  return {
    /** Aggregates up to one batch of pages into the report's checkpoint; finishes the report after the last page. */
    aggregateReportPages: aggregate,
    /** Deletes a job's temporary report files (never the finished report). Best effort: never throws. */
    discardReportFiles: async (input: ReportPagesInput): Promise<{ removed: string[] }> => {
      const parsed = generateReportPayload.safeParse(input.payload);
      if (!parsed.success) return { removed: [] };
      return { removed: await removeTemporaryFiles(deps.reportsDir, filesOf(deps.reportsDir, currentJob().jobId, parsed.data).prefix) };
    },
  };
}

function parsePayload(payload: unknown): GenerateReportPayload {
  return parseJobPayload('generate-report', generateReportPayload, payload);
}

function filesOf(dir: string, jobId: string, payload: GenerateReportPayload) {
  const final = path.join(dir, reportFileName(jobId, payload));
  // Tagged with the job so that two jobs naming the same report never share a checkpoint.
  const prefix = `${final}.${sha(jobId).slice(0, 12)}.`;
  return { final, prefix, partial: `${prefix}partial`, tmp: `${prefix}tmp` };
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function throwIfCancelled(): void {
  const signal = Context.current().cancellationSignal;
  if (signal.aborted) throw signal.reason;
}

function inPeriod(db: Db, period: Period) {
  let query = db.selectFrom('entries').where('created_at', '>=', period.from).where('created_at', '<', period.to);
  if (period.accounts) query = query.where('account_id', 'in', period.accounts);
  return query;
}

async function countEntries(db: Db, period: Period): Promise<number> {
  const row = await inPeriod(db, period).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

function readPage(db: Db, period: Period, cursor: ReportCursor | undefined, limit: number) {
  let query = inPeriod(db, period).select(['payment_id', 'leg', 'account_id', 'amount', 'currency', 'created_at']);
  if (cursor) {
    query = query.where((eb) => eb(eb.refTuple('created_at', 'payment_id', 'leg'), '>', eb.tuple(cursor.createdAt, cursor.paymentId, cursor.leg)));
  }
  return query.orderBy('created_at').orderBy('payment_id').orderBy('leg').limit(limit).execute();
}

async function removeTemporaryFiles(dir: string, prefix: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const ours = names.map((n) => path.join(dir, n)).filter((f) => f.startsWith(prefix));
  await Promise.all(ours.map((f) => rm(f, { force: true }).catch(() => undefined)));
  return ours;
}

/**
 * Runs a file-system step; a directory that cannot be written fails the job at once instead of
 * retrying, and a full one is retried (jobs:disk-full) on the schedule.
 */
async function fsStep<T>(dir: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'EISDIR'].includes(code)) {
      throw nonRetryable(GenerateReportErrorType.ReportFailed, `reports directory ${dir} is not writable (${code}); fix REPORTS_DIR, then redrive: ${describeError(err)}`, err);
    }
    throw diskFullFailure(err, { dir, setting: 'REPORTS_DIR' }) ?? err;
  }
}
