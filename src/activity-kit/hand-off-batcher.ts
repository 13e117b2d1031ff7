// Gathers the hand-offs of one worker process into batches, one signal per shard every so often,
// so that a failure storm sends a DLQ workflow tens of signals rather than thousands: Temporal
// refuses signals past 10,000 per run, and a workflow flooded with signals struggles to continue
// as new. Each hand-off's promise settles with the signal that carried it; a failed signal fails
// every hand-off in it, and each is retried by its own activity retry (the DLQ ignores repeats).

/** Options of {@link HandOffBatcher}. */
export interface HandOffBatcherOptions<T> {
  /** Sends one batch to one DLQ shard. */
  send(key: string, items: T[]): Promise<void>;
  /** Least time between two batches to the same shard, in ms; an idle shard's first hand-off goes at once. @defaultValue 200 */
  lingerMs?: number;
  /** Most hand-offs in one batch. @defaultValue 200 */
  maxItems?: number;
  /** Most JSON bytes in one batch (Temporal caps a signal's input at 2 MB); one larger hand-off goes alone. @defaultValue 512000 */
  maxBytes?: number;
}

interface Waiting<T> {
  item: T;
  bytes: number;
  resolve(): void;
  reject(err: unknown): void;
}

interface Shard<T> {
  waiting: Waiting<T>[];
  sending: boolean;
  lastSentAt: number;
  timer?: NodeJS.Timeout;
}

/** Batches items per key, with at most one batch in flight per key. */
export class HandOffBatcher<T> {
  private readonly shards = new Map<string, Shard<T>>();
  private readonly lingerMs: number;
  private readonly maxItems: number;
  private readonly maxBytes: number;

  constructor(private readonly options: HandOffBatcherOptions<T>) {
    this.lingerMs = options.lingerMs ?? 200;
    this.maxItems = options.maxItems ?? 200;
    this.maxBytes = options.maxBytes ?? 512_000;
  }

  /** Queues `item` for the shard `key`; settles when the batch that carried it was sent, or failed. */
  submit(key: string, item: T): Promise<void> {
    let shard = this.shards.get(key);
    if (!shard) {
      shard = { waiting: [], sending: false, lastSentAt: 0 };
      this.shards.set(key, shard);
    }
    const bytes = JSON.stringify(item).length;
    const sent = new Promise<void>((resolve, reject) => shard.waiting.push({ item, bytes, resolve, reject }));
    this.schedule(key, shard);
    return sent;
  }

  private schedule(key: string, shard: Shard<T>): void {
    if (shard.sending || shard.timer || shard.waiting.length === 0) return;
    const wait = shard.lastSentAt + this.lingerMs - Date.now();
    if (wait <= 0 || this.full(shard)) return void this.flush(key, shard);
    shard.timer = setTimeout(() => {
      shard.timer = undefined;
      void this.flush(key, shard);
    }, wait);
  }

  private full(shard: Shard<T>): boolean {
    return shard.waiting.length >= this.maxItems || shard.waiting.reduce((n, w) => n + w.bytes, 0) >= this.maxBytes;
  }

  private async flush(key: string, shard: Shard<T>): Promise<void> {
    if (shard.timer) clearTimeout(shard.timer);
    shard.timer = undefined;
    const batch = this.take(shard);
    if (batch.length === 0) return;
    shard.sending = true;
    try {
      await this.options.send(key, batch.map((w) => w.item));
      for (const w of batch) w.resolve();
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      shard.sending = false;
      shard.lastSentAt = Date.now();
      if (shard.waiting.length === 0) this.shards.delete(key);
      else this.schedule(key, shard);
    }
  }

  /** The next batch: in arrival order, up to the item and byte limits, at least one. */
  private take(shard: Shard<T>): Waiting<T>[] {
    let bytes = 0;
    let n = 0;
    while (n < shard.waiting.length && n < this.maxItems && (n === 0 || bytes + shard.waiting[n]!.bytes <= this.maxBytes)) bytes += shard.waiting[n++]!.bytes;
    return shard.waiting.splice(0, n);
  }
}
