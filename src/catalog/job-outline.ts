// What a job's start memo says of its type's shape: its steps, its main preset and the attempts
// each preset gives a step. A job that completes as this outline predicts writes no final-state
// memo: the record reads the same from the outline and its last step's header
// (src/workflow-kit/closed-state.ts). Workflow-safe. A stored contract.
import { jobMaxAttempts, type JobDefinition } from './define-job';

/** Memo key of the outline every start of a job carries (protocol 3). */
export const jobOutlineMemoKey = 'jobOutline';

/** A job type's shape, as its start recorded it. */
export interface JobOutline {
  /** The declared steps in order; a type that declares none has one step named after itself. */
  steps: string[];
  /** The main preset: the one a job is counted under before its first step says otherwise. */
  preset: string;
  /** Attempts in all that one step gets under each preset. */
  maxAttempts: Record<string, number>;
}

/** The outline of a job type. */
export function jobOutlineOf(definition: JobDefinition): JobOutline {
  return {
    steps: [...(definition.steps ?? [definition.type])],
    preset: definition.mainPreset,
    maxAttempts: Object.fromEntries(Object.keys(definition.presets).map((name) => [name, jobMaxAttempts(definition, name)])),
  };
}

/** The outline in a start memo, if it holds a well-formed one. */
export function outlineFromMemo(memo: Record<string, unknown> | undefined): JobOutline | undefined {
  const value = memo?.[jobOutlineMemoKey] as Partial<JobOutline> | undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const { steps, preset, maxAttempts } = value;
  const wellFormed = Array.isArray(steps) && steps.every((s) => typeof s === 'string') && typeof preset === 'string' && typeof maxAttempts === 'object' && maxAttempts !== null;
  return wellFormed ? { steps, preset, maxAttempts } : undefined;
}
