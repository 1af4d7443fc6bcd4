"""The order code of a small shop, whose bugs the grouping corpus captures (see ../../capture.ts)."""

PRICES = {"mug-1": 1200, "tee-9": 2500}


class PaymentError(Exception):
    pass


def place_order(items):
    return total(items)


def total(items):
    return sum(price_of(sku) * quantity for sku, quantity in items)


def price_of(sku):
    # An unknown SKU raises KeyError.
    return PRICES[sku]


def average_basket(baskets):
    return sum(len(basket) for basket in baskets) / len(baskets)


def call_gateway(payment_id):
    raise TimeoutError("gateway timeout after 3000 ms for payment %d" % payment_id)


def charge(payment_id):
    try:
        call_gateway(payment_id)
    except TimeoutError as error:
        raise PaymentError("payment %d failed" % payment_id) from error


def refund(payment_id):
    try:
        call_gateway(payment_id)
    except TimeoutError:
        # A bug in the handler: the original error becomes the implicit context.
        return payment_id.amount
