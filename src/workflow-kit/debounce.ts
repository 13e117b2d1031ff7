import { ActivityFailure, ApplicationFailure, condition, defineQuery, defineSignal, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { StartWindowJobInput, WindowActivities } from '../activity-kit/window-start';
import { presetOptions } from '../catalog/define-job';
import type { JobFairness } from '../catalog/job-fairness';
import { debounceEnqueueSignalName, debouncedJobId } from '../catalog/window-ids';
import { windowPresets } from '../catalog/window-presets';
import { continueAsNewUnderCurrentProtocol, libraryActivities } from './library-activity-calls';

/** One enqueue into a debounce window, as the client sends it. */
export interface DebounceEnqueue {
  /** The payload, validated by the client. */
  payload: unknown;
  /** The job starts this long after the window's last enqueue, in ms. */
  delayMs: number;
  /** ... and at the latest this long after its first, in ms (the first enqueue's value counts). */
  maxDelayMs: number;
  /** 1 (highest) to 5 (lowest); the last enqueue's counts. @defaultValue Temporal's default */
  priority?: number;
  /** The fairness key and weight given at enqueue (the last enqueue's, for a window). @defaultValue what the type derives from the payload */
  fairness?: JobFairness;
}

/** Input of {@link debounceJobWorkflow}; what one run hands the next. */
export interface DebounceWorkflowInput {
  /** The job type. */
  type: string;
  /** The debounce key. */
  key: string;
  /** The window the previous run closed: its job, which this run starts first. @defaultValue none */
  fire?: StartWindowJobInput;
}

/** What a debounce window holds so far, for `jobctl status` of its job before it starts. */
export interface DebounceWindowState {
  /** The job ID the window's enqueues were given. */
  jobId: string;
  /** Enqueues collected. */
  enqueues: number;
  /** The first and last enqueue, and when the window closes if no more come (ISO 8601). */
  firstAt?: string;
  lastAt?: string;
  firesAt?: string;
  /** The last payload collected. */
  payload?: unknown;
}

/** Adds one enqueue to the window of the run it reaches (sent with signal-with-start). A stored contract. */
export const debounceEnqueueSignal = defineSignal<[DebounceEnqueue]>(debounceEnqueueSignalName);
/** The window this run collects. */
export const debounceWindowQuery = defineQuery<DebounceWindowState>('debounceWindow');

/**
 * A window closes early once it holds this many enqueues or bytes of payload: its run's history,
 * and the next run's input that carries them, stay far below Temporal's limits (2 MB input).
 */
const windowLimit = { enqueues: 500, bytes: 1_000_000 };

const { startWindowJob } = libraryActivities<WindowActivities>(presetOptions(windowPresets.start));

/**
 * The debouncer of one job type and key. Each run is one window: it collects enqueues (signals)
 * until `delayMs` has passed since the last one, or `maxDelayMs` since the first, then continues
 * as new, handing the window to the next run, which starts the window's job while it collects
 * a window of its own; a run that has none by then completes. A run's window's job ID is built
 * from its run ID, which signal-with-start returns to the client. Closing a run (continuing or
 * completing) is refused by the server while a signal it has not seen is waiting, so an enqueue
 * either joins the window that returned its ID or reaches the next run: none is lost.
 */
export async function debounceJobWorkflow(input: DebounceWorkflowInput): Promise<void> {
  const { type, key } = input;
  const jobId = debouncedJobId(type, key, workflowInfo().runId);
  const window: DebounceEnqueue[] = [];
  let firstAt = 0;
  let lastAt = 0;
  let bytes = 0;
  const firesAt = () => Math.min(lastAt + window[window.length - 1]!.delayMs, firstAt + window[0]!.maxDelayMs);
  setHandler(debounceEnqueueSignal, (enqueue) => {
    const now = Date.now();
    if (window.length === 0) firstAt = now;
    lastAt = now;
    bytes += JSON.stringify(enqueue.payload ?? null).length;
    window.push(enqueue);
  });
  setHandler(debounceWindowQuery, () => ({
    jobId,
    enqueues: window.length,
    ...(window.length > 0 && { firstAt: iso(firstAt), lastAt: iso(lastAt), firesAt: iso(firesAt()), payload: window[window.length - 1]!.payload }),
  }));

  if (input.fire) await startJobOf(input.fire);
  if (window.length === 0) return;
  for (;;) {
    const wait = firesAt() - Date.now();
    if (wait <= 0 || window.length >= windowLimit.enqueues || bytes >= windowLimit.bytes) break;
    const seen = window.length;
    await condition(() => window.length !== seen, wait);
  }
  const fire: StartWindowJobInput = { type, id: jobId, payloads: window.map((e) => e.payload), priority: window[window.length - 1]!.priority, fairness: window[window.length - 1]!.fairness, createdAt: iso(firstAt) };
  log.info('debounce:closed', { jobId, jobType: type, enqueues: window.length });
  await continueAsNewUnderCurrentProtocol<typeof debounceJobWorkflow>({ type, key, fire });
}

/** Starts a closed window's job; a payload its type refuses (a bad merge) is logged, and the next window goes on. */
async function startJobOf(fire: StartWindowJobInput): Promise<void> {
  try {
    const { started } = await startWindowJob(fire);
    log.info('debounce:started', { jobId: fire.id, jobType: fire.type, enqueues: fire.payloads.length, started });
  } catch (err) {
    if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable)) throw err;
    log.error('debounce:start-failed', { jobId: fire.id, jobType: fire.type, errorType: err.cause.type, error: err.cause.message });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
