// Which attempts a breaker lets begin. While it is closed and no failure is counted since the last
// success, any: a worker asks nothing. Once a failure is counted (suspect), and while half-open,
// each attempt asks the breaker first and they begin one at a time across the fleet: the breaker
// counts each failure before the next attempt begins, so it opens on its threshold however many
// workers there are, and the probe is the only attempt while half-open. While open, none: an
// attempt the server handed out before it opened waits, and is the probe when it is due.
// Workflow-safe: the breaker workflow keeps these with its state (src/workflow-kit/breaker.ts).
import { applyReport, type BreakerMachine, type BreakerView } from './breaker-state';

/** What an attempt asks of its dependency's breaker before it begins. */
export interface BreakerAdmitRequest {
  jobId: string;
  /** How long it may wait for its turn, in ms: what its own timeout leaves it. */
  waitMs: number;
  /** How long its turn lasts without a report, in ms (its worker may stop): its own timeout. */
  leaseMs: number;
}

/** The breaker's answer: admitted, or its wait ran out (the breaker stayed open). */
export interface BreakerAdmission {
  admitted: boolean;
  view: BreakerView;
}

/** `go`: it may begin now; `probe`: it may, as the probe; `wait`: not yet. */
export type AdmissionVerdict = 'go' | 'probe' | 'wait';

/** Whether an attempt may begin now. */
export function admission(m: BreakerMachine, now: number): AdmissionVerdict {
  const { state } = m.view;
  if (state === 'open') return 'wait';
  if (m.admitted && m.admitted.until > now) return 'wait';
  if (state === 'half-open') return m.probing ? 'wait' : 'probe';
  return 'go';
}

/** Admits an attempt if it may begin now, holding the turn until its report or its lease's end. */
export function admit(m: BreakerMachine, jobId: string, leaseMs: number, now: number): AdmissionVerdict {
  const verdict = admission(m, now);
  if (verdict === 'probe') m.probing = true;
  if (verdict === 'probe' || (verdict === 'go' && m.view.suspect)) m.admitted = { jobId, until: now + leaseMs };
  return verdict;
}

/** When the admitted attempt's lease ends (ms), or undefined. */
export function leaseEndsAt(m: BreakerMachine): number | undefined {
  return m.admitted?.until;
}

/**
 * Ends an admitted attempt's lease that ran out with no report (its worker stopped): a probe's
 * counts as failed, any other's frees the turn.
 */
export function expireLease(m: BreakerMachine, now: number): void {
  if (!m.admitted || m.admitted.until > now) return;
  const { jobId } = m.admitted;
  if (m.view.state === 'half-open' && m.probing) {
    applyReport(m, { outcome: 'failure', jobId, message: `the probe (job ${jobId}) sent no report within its lease (its worker stopped?)`, settings: m.settings }, now);
  } else {
    delete m.admitted;
  }
}
