// A redrive or a discard is an update, which only a worker applies: with none polling, the server
// would hold it until one comes back (and apply it then, long after the operator was told it failed).
// So before the first update, a query with a short deadline asks whether a worker answers; one that
// answers late but polled lately is busy, not gone. Until the last worker's last poll is older than
// a live worker's can look (75 s), the two cannot be told apart, and the update is sent
// (docs/guarantees.md).
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { ErrorType, JobsError, describeError } from '../shared/errors';
import { deadLetterCountsQuery } from '../workflow-kit/dead-letter';
import { livePollWindowMs, polledLately } from './queue-pollers';
import { whilePolled } from './while-polled';

/** How long the probe waits for a worker's answer, in ms. */
export const workerProbeMs = 5000;

/** How long an answer vouches for the DLQ's workers, in ms: a bulk operation probes once in that time. */
const answerValidMs = 10_000;

/** gRPC DEADLINE_EXCEEDED. */
const GRPC_DEADLINE_EXCEEDED = 4;

/** No worker answers on the DLQ's queue: nothing was changed. */
export class DeadLetterNoWorkerError extends JobsError {
  constructor(taskQueue: string, why: string, cause: unknown) {
    super(ErrorType.DlqNoWorker, `no worker answers on the DLQ's task queue ${taskQueue} (${why}): nothing was changed; start a worker there (one that serves it: see jobctl doctor) and try again`, { cause });
    this.name = 'DeadLetterError';
  }
}

/** An update sent while a worker seemed alive, and not applied once none polled for {@link livePollWindowMs}: the server holds it. */
export class DeadLetterUnappliedError extends JobsError {
  constructor(workflowId: string, cause: unknown) {
    super(
      ErrorType.DlqBusy,
      `no worker has polled the DLQ's task queue for ${livePollWindowMs / 1000} s and the operation on ${workflowId} was not applied: the server holds it and applies it when a worker polls again; check the entry (jobctl dlq show) before repeating it`,
      { cause },
    );
    this.name = 'DeadLetterError';
  }
}

/** Whether the server refused a query because no worker polled the queue lately. */
export function isNoPoller(err: unknown): boolean {
  const message = err instanceof Error ? `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}` : String(err);
  return /no poller seen|worker may be down/i.test(message);
}

/** Checks, at most once per {@link answerValidMs}, that a worker answers for the DLQ workflows of one task queue. */
export class DeadLetterWorkerCheck {
  private answeredAt = -Infinity;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Resolves when a worker answered a query of `workflowId` lately; throws {@link DeadLetterNoWorkerError} otherwise. */
  async assert(workflowId: string): Promise<void> {
    if (Date.now() - this.answeredAt < answerValidMs) return;
    try {
      await this.client.withDeadline(Date.now() + workerProbeMs, () => this.client.workflow.getHandle(workflowId).query(deadLetterCountsQuery));
    } catch (err) {
      if (isNoPoller(err)) throw new DeadLetterNoWorkerError(this.taskQueue, 'the server saw no poller there lately', err);
      const code = isGrpcServiceError(err) ? err.code : isGrpcServiceError((err as { cause?: unknown })?.cause) ? (err as { cause: { code: number } }).cause.code : undefined;
      // No answer in time, or another refusal (a loaded server cancelled the query, a hand-over to
      // the next run, a query an old worker lacks): a worker busy with a long workflow task answers
      // late but still polls, and the update is its to meet; one that stopped polls no more.
      // The server refuses a query itself once it saw no poll for 20 s, counting a poll it holds
      // (matching.queryPollerUnavailableWindow), but a query waits behind an update in flight.
      if (!(await polledLately(this.client, this.taskQueue))) {
        const why = code === GRPC_DEADLINE_EXCEEDED ? `none answered within ${workerProbeMs / 1000} s` : `the probe failed (${describeError(err)})`;
        throw new DeadLetterNoWorkerError(this.taskQueue, `${why}, and none polled in the last ${livePollWindowMs / 1000} s: stopped or crash-looping`, err);
      }
      return;
    }
    this.answeredAt = Date.now();
  }

  /**
   * Runs an update with an abort signal and waits for it as long as a worker polls the DLQ's queue
   * (a busy one answers late); once none has polled for {@link livePollWindowMs} (its workers died
   * after the check), the call is abandoned with {@link DeadLetterUnappliedError}: the server holds
   * the update and applies it when one returns.
   */
  whileWorkersPoll<T>(workflowId: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return whilePolled(this.client, { taskQueue: this.taskQueue, gone: (cause) => new DeadLetterUnappliedError(workflowId, cause) }, call);
  }
}
