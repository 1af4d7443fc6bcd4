// Package orders is the order code of a small shop, whose bugs the grouping corpus captures
// (see ../../../capture.ts).
package orders

import (
	"fmt"

	"github.com/pkg/errors"
)

type Item struct {
	SKU      string
	Quantity int
}

var prices = []int{1200, 2500}

// PlaceOrder panics with an index out of range for an item whose SKU has no price.
func PlaceOrder(items []Item, index int) int {
	return total(items, index)
}

func total(items []Item, index int) int {
	sum := 0
	for _, item := range items {
		sum += priceOf(index) * item.Quantity
	}
	return sum
}

func priceOf(index int) int {
	return prices[index]
}

var reservations map[string]int

// Reserve writes to a map that was never made: a panic of its own kind.
func Reserve(sku string, quantity int) {
	reservations[sku] = quantity
}

var ErrGatewayTimeout = errors.New("gateway timeout")

func callGateway(paymentID int) error {
	return errors.Wrapf(ErrGatewayTimeout, "after 3000 ms for payment %d", paymentID)
}

// Charge returns the gateway's error wrapped with fmt's %w, a chain of two errors.
func Charge(paymentID int) error {
	if err := callGateway(paymentID); err != nil {
		return fmt.Errorf("payment %d failed: %w", paymentID, err)
	}
	return nil
}

// LoadOrder returns an error made with pkg/errors, which records the stack where it was made.
func LoadOrder(orderID int) error {
	return errors.Errorf("order %d not found", orderID)
}
