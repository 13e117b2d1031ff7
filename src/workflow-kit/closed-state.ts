// What a job reports when it closes, without writing it: a completed job whose final state is what
// its start's outline and its last step predict writes no memo (one history event per job, issue
// 33), and the record derives that state with the same function. The workflow notes the last step
// it scheduled (a regular activity: its header is in the history, where the record reads it); a
// local activity's header is not, so the record cannot see it and such a job writes its memo.
// Free of the workflow SDK: jobctl's reads load it too.
import type { JobOutline } from '../catalog/job-outline';
import type { JobState } from './job-state';
import { RunLocal } from './run-local';

/** A step as its scheduled activity's job header names it. */
export interface ScheduledStep {
  step: string;
  preset?: string;
}

/** The state a completed job reports when it wrote no final memo. */
export function completedState(outline: JobOutline, last: ScheduledStep | undefined): JobState {
  const n = outline.steps.length;
  return {
    step: last?.step ?? outline.steps[0] ?? '',
    steps: outline.steps,
    preset: last?.preset ?? outline.preset,
    maxAttempts: outline.maxAttempts,
    ...(n > 1 ? { progress: { done: n, total: n, unit: 'steps' } } : {}),
  };
}

/** Whether two states read the same once written (JSON, whatever the order of their keys). */
export function sameState(a: JobState, b: JobState): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** The last step this run scheduled as a regular activity. */
const lastStep = new RunLocal<ScheduledStep>('lastScheduledStep');

/** Notes a step's activity as scheduled (called just before its command is issued). */
export function noteScheduledStep(step: ScheduledStep): void {
  lastStep.set(step);
}

/** The last step noted by {@link noteScheduledStep}. */
export function lastScheduledStep(): ScheduledStep | undefined {
  return lastStep.get();
}
