// What a job's workflow tells each activity it schedules, in the activity's headers: the job's
// execution and the preset the activity runs under. The activity interceptor reads it, so a step's
// retry schedule, its ledger key and its log fields need nothing passed by hand. Workflow-safe.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';

/** The header's name. A stored contract: histories hold it on every scheduled step. */
export const jobHeaderName = 'durable-jobs-job';

/** The header's content. */
export interface JobHeader {
  /** The job execution (`workflowInfo().firstExecutionRunId`): a redrive is a new one, a continue-as-new is not. */
  execution: string;
  /** The preset the workflow scheduled the activity with (`jobActivities(definition, preset)`). */
  preset?: string;
  /** The job's step that scheduled it (its state's `step`), on a step's activity; the record reads a completed job's last step from it. */
  step?: string;
}

/** The header's payload. */
export function jobHeaderPayload(header: JobHeader): Payload {
  return defaultPayloadConverter.toPayload(header);
}

/** The header in an activity's headers, if a job's workflow of this release scheduled it. */
export function readJobHeader(headers: Record<string, Payload> | undefined): JobHeader | undefined {
  const payload = headers?.[jobHeaderName];
  if (!payload) return undefined;
  try {
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    if (typeof value !== 'object' || value === null || typeof (value as JobHeader).execution !== 'string') return undefined;
    const { execution, preset, step } = value as JobHeader;
    return { execution, ...(typeof preset === 'string' ? { preset } : {}), ...(typeof step === 'string' ? { step } : {}) };
  } catch {
    return undefined;
  }
}
