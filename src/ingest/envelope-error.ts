/** A malformed (400) or oversized (413) envelope or request body. */
export class EnvelopeError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}
