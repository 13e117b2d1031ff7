// Bulk redrives and discards run here, on the server, not in a loop in the page: a task started
// from the console goes on when its tab closes, paced by the DLQ client's rate limit, and its
// progress is readable from any page. Tasks live as long as the console process; each operation
// of one is recorded in its entry's audit trail, so a task cut short by a restart leaves an exact
// record of what it did, and running it again skips what is no longer dead-lettered.
import { randomUUID } from 'node:crypto';
import { describeError } from '../shared/errors';

/** Where a bulk task is. */
export type BulkTaskStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** A bulk task, as the tasks page shows it. */
export interface BulkTask {
  id: string;
  /** What it does, e.g. `redrive process-payment group 3f2a… at 5/s`. */
  title: string;
  /** Who started it. */
  by: string;
  startedAt: string;
  finishedAt?: string;
  status: BulkTaskStatus;
  /** Entries it has acted on, and of those, how many failed (with the latest errors). */
  done: number;
  failed: number;
  errors: { id: string; message: string }[];
  /** Why the task itself stopped, if it failed. */
  error?: string;
}

/** One operation's outcome, as a task's work reports it. */
export interface BulkStep {
  id: string;
  ok: boolean;
  message?: string;
}

/** Tasks kept for the page after they end. */
const keptTasks = 100;

/** The console's bulk tasks. */
export class BulkTasks {
  private readonly tasks = new Map<string, BulkTask & { abort: AbortController }>();

  /** Starts `work` in the background and returns its task at once. */
  start(title: string, by: string, work: (signal: AbortSignal) => AsyncIterable<BulkStep>): BulkTask {
    const abort = new AbortController();
    const task: BulkTask & { abort: AbortController } = { id: randomUUID(), title, by, startedAt: new Date().toISOString(), status: 'running', done: 0, failed: 0, errors: [], abort };
    this.tasks.set(task.id, task);
    void (async () => {
      try {
        for await (const step of work(abort.signal)) {
          task.done += 1;
          if (!step.ok) {
            task.failed += 1;
            task.errors = [...task.errors, { id: step.id, message: step.message ?? 'failed' }].slice(-20);
          }
          if (abort.signal.aborted) break;
        }
        task.status = abort.signal.aborted ? 'cancelled' : 'done';
      } catch (err) {
        task.status = 'failed';
        task.error = describeError(err);
      } finally {
        task.finishedAt = new Date().toISOString();
        this.prune();
      }
    })();
    return this.view(task);
  }

  /** Stops a running task after the operation in flight. */
  cancel(id: string): boolean {
    const task = this.tasks.get(id);
    if (!task || task.status !== 'running') return false;
    task.abort.abort();
    return true;
  }

  get(id: string): BulkTask | undefined {
    const task = this.tasks.get(id);
    return task && this.view(task);
  }

  /** Every task kept, newest first. */
  list(): BulkTask[] {
    return [...this.tasks.values()].reverse().map((t) => this.view(t));
  }

  /** Waits for the running tasks to end (at console shutdown, after cancelling them). */
  async stopAll(): Promise<void> {
    for (const t of this.tasks.values()) t.abort.abort();
    while ([...this.tasks.values()].some((t) => t.status === 'running')) await new Promise((r) => setTimeout(r, 50));
  }

  private view(task: BulkTask & { abort: AbortController }): BulkTask {
    const { id, title, by, startedAt, finishedAt, status, done, failed, errors, error } = task;
    return { id, title, by, startedAt, finishedAt, status, done, failed, errors: [...errors], error };
  }

  private prune(): void {
    const ended = [...this.tasks.values()].filter((t) => t.status !== 'running');
    for (const t of ended.slice(0, Math.max(0, ended.length - keptTasks))) this.tasks.delete(t.id);
  }
}
