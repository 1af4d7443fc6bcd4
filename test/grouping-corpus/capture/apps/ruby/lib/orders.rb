# The order code of a small shop, whose bugs the grouping corpus captures (see ../../../capture.ts).
module Orders
  PRICES = { 'mug-1' => Struct.new(:price).new(1200) }.freeze

  class PaymentError < StandardError; end

  module_function

  def place_order(items)
    total(items)
  end

  def total(items)
    items.sum { |sku, quantity| price_of(sku) * quantity }
  end

  # An unknown SKU has no product: calling `price` on nil raises NoMethodError.
  def price_of(sku)
    PRICES[sku].price
  end

  def average_basket(baskets)
    baskets.sum(&:size) / baskets.size
  end

  def call_gateway(payment_id)
    raise IOError, "gateway timeout after 3000 ms for payment #{payment_id}"
  end

  # Raised while the gateway's error is handled: Ruby records that error as the cause.
  def charge(payment_id)
    call_gateway(payment_id)
  rescue IOError
    raise PaymentError, "payment #{payment_id} failed"
  end
end
