/**
 * The @sentry/node 10 program of the grouping corpus: `node main.js <dsn>` captures one event per
 * case (tagged `corpus_case`) and exits; `node main.js <dsn> uncaught` dies of an uncaught
 * exception that the SDK reports. Built and run by ../../capture.ts.
 */
import * as Sentry from '@sentry/node';
import { checkout, reserveSlots, skusOf } from './cart';
import { charge, loadOrder } from './payments';

const [dsn, mode] = process.argv.slice(2);
Sentry.init({ dsn, release: 'shop@2.4.1', environment: 'production', sendClientReports: false });

function capture(name: string, thrower: () => unknown, fingerprint?: string[]): void {
  try {
    thrower();
  } catch (error) {
    Sentry.withScope((scope) => {
      scope.setTag('corpus_case', name);
      if (fingerprint) scope.setFingerprint(fingerprint);
      Sentry.captureException(error);
    });
    return;
  }
  throw new Error(`${name} did not throw`);
}

function message(name: string, text: string): void {
  Sentry.withScope((scope) => {
    scope.setTag('corpus_case', name);
    Sentry.captureMessage(text, 'warning');
  });
}

async function main(): Promise<void> {
  if (mode === 'uncaught') {
    Sentry.setTag('corpus_case', 'uncaught-exception');
    setTimeout(() => reserveSlots(-2), 1);
    return;
  }
  // The same code path twice, with other data: the two events must group together.
  for (const [name, sku] of [
    ['type-error', 'mug-1'],
    ['type-error-again', 'tee-9'],
  ]) {
    capture(name, () => checkout([{ sku, quantity: 2 }]));
  }
  capture('range-error', () => reserveSlots(-1));
  capture('error-with-cause', () => charge(8812));
  capture('anonymous-callback', () => skusOf([{ sku: undefined as unknown as string, quantity: 1 }]));
  try {
    await loadOrder(4411);
  } catch (error) {
    Sentry.withScope((scope) => {
      scope.setTag('corpus_case', 'async-error');
      Sentry.captureException(error);
    });
  }
  for (const [name, ms, items, job] of [
    ['message', 5230, 17, '3f2a1c9e-7b4d-4e21-9c3a-0d5e6f7a8b9c'],
    ['message-again', 812, 4, '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'],
  ]) {
    message(String(name), `Inventory sync took ${ms} ms for ${items} items (job ${job})`);
  }
  capture('custom-fingerprint', () => charge(1001), ['payment-gateway', 'timeout']);
  capture('custom-fingerprint-other-error', () => reserveSlots(-5), ['payment-gateway', 'timeout']);
  capture('fingerprint-default', () => checkout([{ sku: 'cap-3', quantity: 1 }]), [
    '{{ default }}',
    'tenant-eu',
  ]);
  await Sentry.flush(5_000);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
