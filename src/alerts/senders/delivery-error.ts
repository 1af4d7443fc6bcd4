/**
 * A delivery that did not reach its receiver. The message is written for the operator: it lands in
 * the alert history, on the channel (`last_error`) and in the test endpoint's answer.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Retrying cannot help (refused address, missing SMTP configuration, unusable channel config). */
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** Any error as a one-line message fit for the history and the test endpoint. */
export function deliveryErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 1_000) || 'delivery failed';
}
