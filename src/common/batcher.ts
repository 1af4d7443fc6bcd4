/**
 * Collects items submitted concurrently and hands them to `flush` in batches, resolving each
 * submitter with its own result once its batch is done. A batch is flushed when it is full or when
 * the oldest item has waited `maxWaitMs`, so a lone item is never held back for long; with
 * `maxWaitMs: 0` a batch holds what was submitted in the same turn of the event loop.
 */
export class Batcher<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxSize: number; maxWaitMs: number },
  ) {}

  /** Items submitted and not yet handed to `flush`. */
  get waiting(): number {
    return this.pending.length;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.options.maxSize) this.flushNow();
      else if (!this.timer && !this.immediate) this.schedule();
    });
  }

  /** Sends what is pending without waiting (on shutdown, say). */
  flushNow(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.flush(batch.map((entry) => entry.item)).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index])),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  }

  private schedule(): void {
    if (this.options.maxWaitMs === 0) this.immediate = setImmediate(() => this.flushNow());
    else this.timer = setTimeout(() => this.flushNow(), this.options.maxWaitMs);
  }
}
