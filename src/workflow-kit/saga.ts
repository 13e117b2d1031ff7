import { CancellationScope, log } from '@temporalio/workflow';
import { jobMetrics } from '../shared/job-metrics';
import { countJob, currentJobType } from './job-metrics';
import type { JobState } from './job-state';

/**
 * The undo steps of a job that has taken effects so far. When the job fails or is cancelled, the
 * workflow calls {@link Saga.compensate}, which undoes them newest first: later steps build on
 * earlier ones (a capture on its hold), so undoing in reverse never leaves a step orphaned.
 */
export class Saga {
  private readonly undos: { step: string; undo: () => Promise<unknown> }[] = [];

  constructor(private readonly state: JobState) {}

  /** Records that `step` took effect and how to undo it. */
  add(step: string, undo: () => Promise<unknown>): void {
    this.undos.push({ step, undo });
  }

  /** Whether any step needs undoing. */
  get pending(): boolean {
    return this.undos.length > 0;
  }

  /**
   * Undoes every recorded step, newest first. Runs in a non-cancellable scope so that a job
   * cancelled mid-way still compensates; each undo is an activity whose preset retries it until
   * it succeeds, and a worker crash mid-way resumes here on replay.
   */
  async compensate(): Promise<void> {
    if (this.undos.length === 0) return;
    this.state.compensation = { status: 'running', undone: [] };
    await CancellationScope.nonCancellable(async () => {
      for (const { step, undo } of [...this.undos].reverse()) {
        await undo();
        this.state.compensation?.undone.push(step);
      }
    });
    this.state.compensation.status = 'done';
    this.undos.length = 0;
    log.info('job:compensated', { undone: this.state.compensation.undone });
    const jobType = currentJobType();
    if (jobType) countJob(jobMetrics.compensated, jobType);
  }
}
