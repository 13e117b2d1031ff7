// How many attempts against a dependency this process takes at once: the activity slots of the
// dependency's task queue, handed out before each poll (the SDK's custom slot supplier). One at a
// time unless an attempt against it succeeded here within the trust period (the breaker's window)
// and none has failed in a counted way since, and the breaker, as last read, is closed and counts no
// failure: a dependency that went down while idle, or while its queue filled, then meets one attempt
// per worker, not one per slot, and those ask the breaker for their turn (src/activity-kit/breakers.ts)
// until it opens (which stops the server handing out any). Trusted again after a success.
import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit, SlotReleaseContext } from '@temporalio/worker';
import type { BreakerView } from '../catalog/breaker-state';

export class BreakerGate implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom' as const;
  private reserved = 0;
  /** Failure reports the breaker has not answered yet: while any is out, no new slot. */
  private held = 0;
  /** When the last attempt succeeded (ms), unless one failed in a counted way since. */
  private lastSuccess: number | undefined;
  /** Whether the breaker, as last read, is not closed or counts a failure: attempts then take turns across the fleet. */
  private wary = false;
  private readonly waiting: (() => void)[] = [];

  /**
   * @param concurrency The slots once trusted: the dependency's `concurrency`.
   * @param trustMs How long a success keeps every slot open without another: the breaker's window.
   * @param now The clock (tests).
   */
  constructor(
    readonly concurrency: number,
    private readonly trustMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Slots it hands out now: none while a failure report is unanswered, all of them while trusted and the breaker is at ease, else one. */
  get limit(): number {
    if (this.held > 0) return 0;
    return this.isTrusted && !this.wary ? this.concurrency : 1;
  }

  /** What the worker last read of the breaker. */
  observe(view: Pick<BreakerView, 'state' | 'suspect'>): void {
    this.wary = view.state !== 'closed' || view.suspect === true;
    this.drain();
  }

  /**
   * Hands out no new slot until the breaker has answered this failure's report (or `capMs` has
   * passed): each worker's next attempt then waits until the breaker has counted the last, however
   * slowly a busy worker runs the breaker's workflow task, so the breaker opens on its threshold.
   */
  holdUntilAnswered(report: Promise<unknown>, capMs: number): void {
    this.held += 1;
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, capMs)));
    void Promise.race([report.then(() => undefined, () => undefined), cap]).then(() => {
      clearTimeout(timer);
      this.held -= 1;
      this.drain();
    });
  }

  /** Whether an attempt succeeded within the trust period, and none failed in a counted way since. */
  get isTrusted(): boolean {
    return this.lastSuccess !== undefined && this.now() - this.lastSuccess < this.trustMs;
  }

  /** An attempt succeeded: every slot again. */
  succeeded(): void {
    this.lastSuccess = this.now();
    this.drain();
  }

  /** An attempt failed in a way the breaker counts: one slot at a time until the next success. */
  failed(): void {
    this.lastSuccess = undefined;
  }

  reserveSlot(_ctx: unknown, abortSignal: AbortSignal): Promise<SlotPermit> {
    if (this.reserved < this.limit) {
      this.reserved += 1;
      return Promise.resolve({});
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        abortSignal.removeEventListener('abort', abort);
        this.reserved += 1;
        resolve({});
      };
      const abort = () => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        const err = new Error('slot reservation aborted');
        err.name = 'AbortError';
        reject(err);
      };
      if (abortSignal.aborted) return abort();
      abortSignal.addEventListener('abort', abort, { once: true });
      this.waiting.push(grant);
    });
  }

  tryReserveSlot(): SlotPermit | null {
    if (this.reserved >= this.limit || this.waiting.length > 0) return null;
    this.reserved += 1;
    return {};
  }

  markSlotUsed(): void {}

  releaseSlot(_ctx: SlotReleaseContext<ActivitySlotInfo>): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.drain();
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.reserved < this.limit) this.waiting.shift()!();
  }
}
