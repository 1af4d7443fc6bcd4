# The sentry-ruby program of the grouping corpus: `SENTRY_DSN=<dsn> ruby bin/shop.rb` sends one event
# per case, tagged corpus_case. Run by ../../../sdks.ts (npm run corpus:capture).
require 'sentry-ruby'
require_relative '../lib/orders'

Sentry.init do |config|
  config.release = 'shop@2.4.1'
  config.environment = 'production'
  # Sent before each capture returns, so the program can exit right after.
  config.background_worker_threads = 0
end

def capture(name, fingerprint = nil)
  yield
  raise "#{name} did not raise"
rescue StandardError => e
  Sentry.with_scope do |scope|
    scope.set_tags(corpus_case: name)
    scope.set_fingerprint(fingerprint) if fingerprint
    Sentry.capture_exception(e)
  end
end

def message(name, text)
  Sentry.with_scope do |scope|
    scope.set_tags(corpus_case: name)
    Sentry.capture_message(text)
  end
end

# The same code path twice, with other data: the two events must group together.
[%w[no-method-error cap-3], %w[no-method-error-again bag-7]].each do |name, sku|
  capture(name) { Orders.place_order([['mug-1', 2], [sku, 1]]) }
end
capture('zero-division') { Orders.average_basket([]) }
capture('chained-cause') { Orders.charge(8812) }
[['message', 5230, 17, '3f2a1c9e-7b4d-4e21-9c3a-0d5e6f7a8b9c'],
 ['message-again', 812, 4, '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']].each do |name, ms, items, job|
  message(name, "Inventory sync took #{ms} ms for #{items} items (job #{job})")
end
capture('custom-fingerprint', %w[payment-gateway timeout]) { Orders.charge(1001) }
capture('custom-fingerprint-other-error', %w[payment-gateway timeout]) { Orders.average_basket([]) }
capture('fingerprint-default', ['{{ default }}', 'tenant-eu']) { Orders.place_order([['cap-3', 1]]) }
