/** A small shop's cart code, whose bugs are what the corpus captures (see ../../capture.ts). */

export interface Item {
  sku: string;
  quantity: number;
  product?: { price: number };
}

export function checkout(items: Item[]): number {
  return items.reduce((sum, item) => sum + lineTotal(item), 0);
}

function lineTotal(item: Item): number {
  return priceOf(item) * item.quantity;
}

function priceOf(item: Item): number {
  // The product was never loaded: reading its price throws a TypeError.
  return (item.product as { price: number }).price;
}

/** One slot per item, reserved ahead: a negative count makes an invalid array length (RangeError). */
export function reserveSlots(count: number): unknown[] {
  return new Array(count).fill(null);
}

/** The anonymous callback of `map` is where this one throws. */
export function skusOf(items: Item[]): string[] {
  return items.map((item) => item.sku.toUpperCase());
}
