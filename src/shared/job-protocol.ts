// The version of the library's own calls that a workflow makes, decided once, when it starts: the
// start's memo says it, so no marker or event is written for it, and a history recorded by an
// earlier release (no such memo) replays with the calls it made. Workflow-safe. A stored contract.

/** Memo key of the protocol a workflow was started under. Absent: protocol 1. */
export const jobProtocolMemoKey = 'jobProtocol';

/**
 * The protocol every start of this release writes.
 * - 1 (no memo): the library's activities are called by their bare names (`restartJob`).
 * - 2: they are called by their namespaced names (`durable-jobs.restartJob`).
 * - 3: a job has its lifecycle (final state, DLQ hand-off) without a patch marker saying so
 *   (src/workflow-kit/interceptors.ts, `hasJobLifecycle`), and writes its final state to its memo
 *   only when the record cannot read it otherwise: a failed job's travels in its hand-off, a
 *   completed job's is derived from the start's `jobOutline` memo and its last step's header
 *   (src/workflow-kit/closed-state.ts). A completed job writes the plain workflow's events.
 */
export const currentJobProtocol = 3;

/** The memo entry every start of a job or a library workflow carries. */
export function jobProtocolMemo(): Record<string, number> {
  return { [jobProtocolMemoKey]: currentJobProtocol };
}

/** The protocol a workflow was started under, from its start memo. */
export function jobProtocolOf(memo: Record<string, unknown> | undefined): number {
  const value = memo?.[jobProtocolMemoKey];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 1;
}
