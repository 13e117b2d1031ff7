// The breaker of one dependency as a state machine: plain functions of its state, a report or an
// operator's order, and the time. The breaker workflow (src/workflow-kit/breaker.ts) keeps it;
// jobctl, the console and the metric read its view from the workflow's memo. Workflow-safe.
import type { BreakerSettings } from './dependency';

/** Where a breaker stands: `closed` lets attempts run; `open` starts none; `half-open` lets one probe run. */
export type BreakerStateName = 'closed' | 'open' | 'half-open';

/** One change of a breaker's state, kept as its audit. */
export interface BreakerChange {
  at: string;
  from: BreakerStateName;
  to: BreakerStateName;
  why: string;
  /** Who ordered it, for an operator's order. */
  by?: string;
}

/** A breaker as jobctl, the console and the metric show it: the memo of its workflow. */
export interface BreakerView {
  dependency: string;
  state: BreakerStateName;
  /** When it took this state (ISO 8601). */
  since: string;
  /** Why: the failures that opened it, the probe's outcome, or the operator's reason. */
  why: string;
  /**
   * Set while closed after a counted failure with no success since: attempts then begin one at a
   * time across the fleet, each admitted by the breaker (src/catalog/breaker-admission.ts), so that
   * it counts each failure before the next attempt and opens on its threshold.
   */
  suspect?: true;
  /** Set while an operator holds it open: no probe runs until an operator closes it. */
  forced?: { by?: string; reason?: string };
  /** When the next probe is due, while open (ISO 8601). */
  probeAt?: string;
  /** The cool-down before that probe, in ms. */
  coolDownMs?: number;
  /** Times it opened since its workflow started. */
  opened: number;
  /** Its last changes, newest last: who or what changed it, when and why. */
  changes: BreakerChange[];
}

/** What a worker tells a breaker of one attempt against its dependency. */
export interface BreakerReport {
  /**
   * `failure`: counted; `success`: sent by an admitted attempt, or while the breaker is not closed
   * or suspect; `release`: an admitted attempt ended with neither (a job's own error, a cancellation).
   */
  outcome: 'failure' | 'success' | 'release';
  errorType?: string;
  message?: string;
  jobId?: string;
  /** When the attempt failed (ms since the epoch, the worker's clock): a report that arrives later than {@link staleReportMs} is not counted. */
  at?: number;
  /** The reporting worker's settings of the dependency: the breaker follows the newest. */
  settings: BreakerSettings;
}

/** An operator's order: hold the breaker open (no probe) or close it now. */
export interface BreakerOrder {
  state: 'open' | 'closed';
  by?: string;
  reason?: string;
}

/** A breaker's whole state: its view, the failures counted in the window, and whether a probe is running. */
export interface BreakerMachine {
  view: BreakerView;
  /** Times (ms) of the counted failures within the window, while closed. */
  failures: number[];
  /** True once the half-open breaker admitted its probe: no other attempt may start. */
  probing: boolean;
  /** The attempt admitted while suspect or half-open, until it reports or its lease ends (ms). */
  admitted?: { jobId: string; until: number };
  /** The cool-down before the probe now due or running: a failed probe doubles it. */
  lastCoolDownMs?: number;
  settings: BreakerSettings;
}

/** What a breaker workflow starts with: its dependency, its queue, and after a continue-as-new its state. */
export interface BreakerInput {
  dependency: string;
  /** The dependency's task queue, whose rate the breaker sets. */
  taskQueue: string;
  settings: BreakerSettings;
  machine?: BreakerMachine;
  /** The rate last set on the server (null: none set). */
  appliedRate?: number | null;
}

/**
 * How old a failure report may be when the breaker gets it and still count: reports arrive within
 * milliseconds, unless no worker ran the breaker then (they wait on the server, and must not open it
 * against a dependency that has recovered since).
 */
export const staleReportMs = 10_000;

/** Changes a breaker keeps in its view. */
const keptChanges = 20;

/** Attempts per second the server hands out while a half-open breaker waits for its probe to begin: one, then the probe's report stops it. */
export const probeRate = 0.5;

export function newBreaker(dependency: string, settings: BreakerSettings, now: number): BreakerMachine {
  return { view: { dependency, state: 'closed', since: new Date(now).toISOString(), why: 'never opened', opened: 0, changes: [] }, failures: [], probing: false, settings };
}

/** The view of a breaker that never ran: closed, since no particular time. */
export function neverRan(dependency: string): BreakerView {
  return { dependency, state: 'closed', since: '', why: 'never opened', opened: 0, changes: [] };
}

function change(m: BreakerMachine, to: BreakerStateName, why: string, now: number, by?: string): void {
  const at = new Date(now).toISOString();
  const { view } = m;
  view.changes = [...view.changes, { at, from: view.state, to, why, ...(by ? { by } : {}) }].slice(-keptChanges);
  // An order that keeps the state (open while open) is recorded, but the state is as old as it was.
  if (view.state !== to || !view.since) view.since = at;
  if (to === 'open' && view.state !== 'open') view.opened += 1;
  view.state = to;
  view.why = why;
  m.probing = false;
  m.failures = [];
  delete m.admitted;
  delete view.suspect;
  delete view.probeAt;
  delete view.coolDownMs;
  if (to !== 'open') delete view.forced;
}

function open(m: BreakerMachine, why: string, coolDownMs: number, now: number): void {
  change(m, 'open', why, now);
  m.view.coolDownMs = coolDownMs;
  m.view.probeAt = new Date(now + coolDownMs).toISOString();
}

const describe = (r: BreakerReport) => [r.errorType, r.message?.slice(0, 300)].filter(Boolean).join(': ') || 'a failed attempt';

/** Applies a worker's report of an attempt; returns the state after it. */
export function applyReport(m: BreakerMachine, report: BreakerReport, now: number): BreakerStateName {
  m.settings = report.settings;
  const { view, settings } = m;
  const wasAdmitted = report.jobId !== undefined && m.admitted?.jobId === report.jobId;
  if (wasAdmitted) delete m.admitted;
  if (report.outcome === 'release') {
    // The probe ended without a verdict: the next attempt is the probe.
    if (view.state === 'half-open' && wasAdmitted) m.probing = false;
  } else if (report.outcome === 'success') {
    if (view.state === 'half-open') {
      change(m, 'closed', `a probe succeeded${report.jobId ? ` (job ${report.jobId})` : ''}`, now);
      delete m.lastCoolDownMs;
    } else if (view.state === 'closed') delete view.suspect;
  } else if (report.at !== undefined && now - report.at > staleReportMs) {
    // Stale: what the dependency did then says nothing of now.
  } else if (view.state === 'closed') {
    m.failures = [...m.failures.filter((at) => at > now - settings.windowMs), now];
    view.suspect = true;
    if (m.failures.length >= settings.failures) open(m, `${m.failures.length} failures within ${Math.round(settings.windowMs / 1000)}s, the last ${describe(report)}`, settings.coolDownMs, now);
  } else if (view.state === 'half-open') {
    const coolDownMs = Math.min(2 * (m.lastCoolDownMs ?? settings.coolDownMs), settings.maxCoolDownMs);
    open(m, `the probe failed: ${describe(report)}`, coolDownMs, now);
  }
  return view.state;
}

/** Applies an operator's order. */
export function applyOrder(m: BreakerMachine, order: BreakerOrder, now: number): BreakerStateName {
  const why = order.reason ? `ordered by an operator: ${order.reason}` : 'ordered by an operator';
  if (order.state === 'open') {
    change(m, 'open', why, now, order.by);
    m.view.forced = { ...(order.by ? { by: order.by } : {}), ...(order.reason ? { reason: order.reason } : {}) };
  } else {
    change(m, 'closed', why, now, order.by);
    delete m.lastCoolDownMs;
  }
  return m.view.state;
}

/** When an open breaker's probe is due (ms), or undefined (not open, or held open by an operator). */
export function probeDueAt(m: BreakerMachine): number | undefined {
  return m.view.state === 'open' && !m.view.forced && m.view.probeAt ? Date.parse(m.view.probeAt) : undefined;
}

/** Turns an open breaker whose cool-down has passed half-open: the next attempt is its probe. */
export function startProbe(m: BreakerMachine, now: number): void {
  const coolDownMs = m.view.coolDownMs;
  change(m, 'half-open', 'the cool-down passed: the next attempt is a probe', now);
  m.lastCoolDownMs = coolDownMs;
}

/**
 * The rate the server should hand attempts out at: 0 stops them; undefined is the dependency's own
 * (or none). `waiting`: attempts already handed out that wait for the breaker's admission (the
 * first is the probe, so the server hands out no other).
 */
export function wantedRate(m: BreakerMachine, waiting = 0): number | undefined {
  if (m.view.state === 'open') return 0;
  if (m.view.state === 'half-open') return m.probing || waiting > 0 ? 0 : probeRate;
  return m.settings.rate;
}
