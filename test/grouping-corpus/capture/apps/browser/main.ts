/**
 * The @sentry/browser 10 page of the grouping corpus: one button per case, clicked in Chromium by
 * ../../sdks.ts. The shop code is the Node app's (../node), bundled with this file by esbuild; the
 * DSN comes in the page's `data-dsn`.
 */
import * as Sentry from '@sentry/browser';
import { checkout, reserveSlots, skusOf } from '../node/cart';
import { charge, loadOrder } from '../node/payments';

Sentry.init({
  dsn: document.body.dataset.dsn,
  release: 'web@3.1.0',
  environment: 'production',
  sendClientReports: false,
});

function handled(thrower: () => unknown, fingerprint?: string[]): () => void {
  return () => {
    try {
      thrower();
    } catch (error) {
      Sentry.captureException(error, fingerprint ? { fingerprint } : undefined);
    }
  };
}

const CASES: Record<string, () => void> = {
  // The same code path twice, with other data: the two events must group together.
  ...Object.fromEntries(
    [
      ['type-error', 'mug-1'],
      ['type-error-again', 'tee-9'],
    ].map(([name, sku]) => [name, handled(() => checkout([{ sku, quantity: 1 }]))]),
  ),
  'range-error': handled(() => reserveSlots(-1)),
  'error-with-cause': handled(() => charge(8812)),
  'anonymous-callback': handled(() => skusOf([{ sku: undefined as unknown as string, quantity: 1 }])),
  ...Object.fromEntries(
    [
      ['message', 5521, '7f3e9a21', 30],
      ['message-again', 16, '0b44c1d9', 5],
    ].map(([name, cart, visitor, minutes]) => [
      name,
      () => Sentry.captureMessage(`Cart ${cart} of visitor ${visitor} expired after ${minutes} minutes`),
    ]),
  ),
  'custom-fingerprint': handled(() => charge(1001), ['payment-gateway', 'timeout']),
  'custom-fingerprint-other-error': handled(() => reserveSlots(-5), ['payment-gateway', 'timeout']),
  'fingerprint-default': handled(
    () => checkout([{ sku: 'cap-3', quantity: 1 }]),
    ['{{ default }}', 'tenant-eu'],
  ),
  // Not caught: the SDK's global handlers report these.
  'unhandled-click': () => checkout([{ sku: 'bag-2', quantity: 1 }]),
  'unhandled-rejection': () => void loadOrder(4411),
};

for (const [name, run] of Object.entries(CASES)) {
  const button = document.createElement('button');
  button.id = name;
  button.textContent = name;
  button.addEventListener('click', () => {
    Sentry.setTag('corpus_case', name);
    run();
  });
  document.body.append(button);
}
