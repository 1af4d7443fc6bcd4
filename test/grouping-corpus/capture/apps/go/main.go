// The sentry-go program of the grouping corpus: `SENTRY_DSN=<dsn> go run shop` (GOPATH mode)
// sends one event per case, tagged corpus_case. Run by ../../sdks.ts (npm run corpus:capture).
package main

import (
	"time"

	"github.com/getsentry/sentry-go"

	"shop/orders"
)

func withCase(name string, fingerprint []string, send func()) {
	sentry.WithScope(func(scope *sentry.Scope) {
		scope.SetTag("corpus_case", name)
		if fingerprint != nil {
			scope.SetFingerprint(fingerprint)
		}
		send()
	})
}

// recovered runs f, which panics, and reports the panic as a deferred sentry.Recover would.
func recovered(name string, fingerprint []string, f func()) {
	defer func() {
		if err := recover(); err != nil {
			withCase(name, fingerprint, func() { sentry.CurrentHub().Recover(err) })
		}
	}()
	f()
	panic(name + " did not panic")
}

func captured(name string, fingerprint []string, err error) {
	withCase(name, fingerprint, func() { sentry.CaptureException(err) })
}

func main() {
	if err := sentry.Init(sentry.ClientOptions{Release: "shop@2.4.1", Environment: "production"}); err != nil {
		panic(err)
	}
	defer sentry.Flush(5 * time.Second)

	// The same code path twice, with other data: the two events must group together.
	for _, order := range []struct {
		name  string
		sku   string
		index int
	}{{"index-out-of-range", "mug-1", 7}, {"index-out-of-range-again", "tee-9", 3}} {
		recovered(order.name, nil, func() { orders.PlaceOrder([]orders.Item{{order.sku, 1}}, order.index) })
	}
	recovered("nil-map", nil, func() { orders.Reserve("mug-1", 2) })
	captured("wrapped-error", nil, orders.Charge(8812))
	for _, order := range []struct {
		name string
		id   int
	}{{"pkg-errors", 4411}, {"pkg-errors-again", 17}} {
		captured(order.name, nil, orders.LoadOrder(order.id))
	}
	withCase("message", nil, func() {
		sentry.CaptureMessage("Inventory sync took 5230 ms for 17 items (job 3f2a1c9e-7b4d-4e21-9c3a-0d5e6f7a8b9c)")
	})
	withCase("message-again", nil, func() {
		sentry.CaptureMessage("Inventory sync took 812 ms for 4 items (job 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d)")
	})
	captured("custom-fingerprint", []string{"payment-gateway", "timeout"}, orders.Charge(1001))
	recovered("custom-fingerprint-other-error", []string{"payment-gateway", "timeout"}, func() { orders.Reserve("cap-3", 1) })
	recovered("fingerprint-default", []string{"{{ default }}", "tenant-eu"}, func() {
		orders.PlaceOrder([]orders.Item{{"cap-3", 1}}, 9)
	})
}
