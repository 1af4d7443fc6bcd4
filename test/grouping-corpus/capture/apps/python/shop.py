"""The sentry-sdk (Python) program of the grouping corpus.

SENTRY_DSN=<dsn> /usr/bin/python3 shop.py [uncaught] sends one event per case, tagged corpus_case;
with `uncaught` it dies of an exception the SDK reports. Run by ../../sdks.ts (npm run corpus:capture).
"""
import logging
import sys

import sentry_sdk

import orders

sentry_sdk.init(release="shop@2.4.1", environment="production")
log = logging.getLogger("shop.orders")


def capture(case, raiser, fingerprint=None):
    try:
        raiser()
    except Exception:
        with sentry_sdk.push_scope() as scope:
            scope.set_tag("corpus_case", case)
            if fingerprint:
                scope.fingerprint = fingerprint
            sentry_sdk.capture_exception()
        return
    raise AssertionError(case + " did not raise")


def message(case, send):
    with sentry_sdk.push_scope() as scope:
        scope.set_tag("corpus_case", case)
        send()


def main():
    if sys.argv[1:] == ["uncaught"]:
        sentry_sdk.set_tag("corpus_case", "uncaught-exception")
        orders.average_basket([])
    # The same code path twice, with other data: the two events must group together.
    for case, sku in [("key-error", "cap-3"), ("key-error-again", "bag-7")]:
        capture(case, lambda: orders.place_order([("mug-1", 2), (sku, 1)]))
    capture("zero-division", lambda: orders.average_basket([]))
    capture("chained-cause", lambda: orders.charge(8812))
    capture("chained-context", lambda: orders.refund(8812))
    for case, ms, items, job in [
        ("message", 5230, 17, "3f2a1c9e-7b4d-4e21-9c3a-0d5e6f7a8b9c"),
        ("message-again", 812, 4, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
    ]:
        text = "Inventory sync took %d ms for %d items (job %s)" % (ms, items, job)
        message(case, lambda: sentry_sdk.capture_message(text, "warning"))
    for case, order, retries in [("logging-message", 1234, 3), ("logging-message-again", 98, 1)]:
        message(case, lambda: log.error("Order %s failed after %d retries", order, retries))
    capture("custom-fingerprint", lambda: orders.charge(1001), ["payment-gateway", "timeout"])
    capture("custom-fingerprint-other-error", lambda: orders.average_basket([]), ["payment-gateway", "timeout"])
    capture("fingerprint-default", lambda: orders.place_order([("cap-3", 1)]), ["{{ default }}", "tenant-eu"])
    sentry_sdk.flush(5)


main()
