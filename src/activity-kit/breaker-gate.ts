// How many attempts against a dependency this process takes at once: the activity slots of the
// dependency's task queue, handed out before each poll (the SDK's custom slot supplier). Until an
// attempt against it has succeeded here, and again after each counted failure, one at a time: a
// dependency that went down while its queue filled then meets one attempt per worker, not one per
// slot, before its breaker opens (which stops the server handing out any). Trusted again after a success.
import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit, SlotReleaseContext } from '@temporalio/worker';

export class BreakerGate implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom' as const;
  private reserved = 0;
  private trusted = false;
  private readonly waiting: (() => void)[] = [];

  /** @param concurrency The slots once trusted: the dependency's `concurrency`. */
  constructor(readonly concurrency: number) {}

  /** Slots it hands out now: all of them once trusted, else one. */
  get limit(): number {
    return this.trusted ? this.concurrency : 1;
  }

  /** Whether an attempt succeeded since the last counted failure. */
  get isTrusted(): boolean {
    return this.trusted;
  }

  /** An attempt succeeded: every slot again. */
  succeeded(): void {
    this.trusted = true;
    this.drain();
  }

  /** An attempt failed in a way the breaker counts: one slot at a time until the next success. */
  failed(): void {
    this.trusted = false;
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
