/**
 * Anything that consumes a request body chunk by chunk. `write`/`end` throw to reject the body.
 * `pressure`, asked after each write, may return a promise: the body is paused until it settles
 * (backpressure), and refused if it rejects.
 */
export interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
  pressure?(): Promise<void> | undefined;
}

/**
 * Receives the payloads of one item type as they arrive, without the reader holding them: `begin`
 * with the item header, `data` with each piece, `end` once the payload is complete. Any of them may
 * throw an EnvelopeError to refuse the envelope. `pressure` is asked after every chunk written to
 * the reader: a promise while the stream holds more than it wants (the body waits for it), which
 * rejects if the stream failed.
 */
export interface ItemStream {
  begin(header: Record<string, unknown>): void;
  data(bytes: Buffer): void;
  end(): void;
  pressure(): Promise<void> | undefined;
}
