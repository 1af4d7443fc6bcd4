/** Payment code of the small shop the corpus captures errors from (see ../../capture.ts). */

export class PaymentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaymentError';
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

function callGateway(paymentId: number, timeoutMs: number): never {
  throw new Error(`gateway timeout after ${timeoutMs} ms for payment ${paymentId}`);
}

/** A gateway failure is rethrown as a PaymentError whose cause is the gateway's error. */
export function charge(paymentId: number): void {
  try {
    callGateway(paymentId, 3000);
  } catch (error) {
    throw new PaymentError(`payment ${paymentId} failed`, { cause: error });
  }
}

export async function loadOrder(orderId: number): Promise<unknown> {
  await new Promise((resolve) => setTimeout(resolve, 1));
  throw new NotFoundError(`order ${orderId} not found`);
}
