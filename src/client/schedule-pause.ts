// A paused type's schedules: their runs start knowing the pause. A schedule starts its runs on the
// server, with the memo its action was created with, so `pause` writes the pause into the action's
// memo of each of the type's schedules (a run then waits at the job's pause gate, as an enqueued
// job does) and `resume` takes it out. The schedules keep firing: the runs are accepted and wait,
// which is what a pause promises. Pausing the schedule itself (`jobctl schedule pause`) is the other
// choice, for runs that should not happen at all.
import { ScheduleNotFoundError, type Client, type ScheduleDescription, type ScheduleUpdateOptions } from '@temporalio/client';
import { jobPauseMemoKey, type JobPause } from '../catalog/job-pause';
import { scheduleMemoKey } from './schedules';

/** The update of one schedule's action: its memo with `pause` in it, or without the pause when `pause` is undefined. */
function withPause(previous: ScheduleDescription, pause: JobPause | undefined): ScheduleUpdateOptions {
  const { action } = previous;
  if (action.type !== 'startWorkflow') return previous as unknown as ScheduleUpdateOptions;
  const memo: Record<string, unknown> = { ...(action.memo ?? {}) };
  if (pause) memo[jobPauseMemoKey] = pause;
  else delete memo[jobPauseMemoKey];
  return { ...previous, action: { ...action, memo } } as unknown as ScheduleUpdateOptions;
}

/**
 * Writes `pause` into the start memo of every schedule of `type` in the deployment (its shared
 * task queue), or takes it out when `pause` is undefined; returns how many schedules it changed.
 * A schedule deleted meanwhile is skipped. Idempotent: a schedule already in that state is left alone.
 */
export async function markSchedulesPaused(client: Client, taskQueue: string, type: string, pause: JobPause | undefined): Promise<number> {
  const ids: string[] = [];
  for await (const s of client.schedule.list()) {
    const memo = s.memo?.[scheduleMemoKey] as { type?: string; taskQueue?: string } | undefined;
    if (memo?.taskQueue === taskQueue && memo.type === type) ids.push(s.scheduleId);
  }
  let changed = 0;
  for (const id of ids) {
    try {
      await client.schedule.getHandle(id).update((previous) => {
        const current = previous.action.type === 'startWorkflow' ? previous.action.memo?.[jobPauseMemoKey] : undefined;
        if (JSON.stringify(current) === JSON.stringify(pause)) return previous as unknown as ScheduleUpdateOptions;
        changed += 1;
        return withPause(previous, pause);
      });
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
  return changed;
}
