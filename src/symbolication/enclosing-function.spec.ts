import { enclosingFunction } from './enclosing-function';

const SOURCE = `import { price } from './price';

export function total(items: Item[]): number {
  if (items.length === 0) {
    throw new Error('empty cart');
  }
  return items.reduce((sum, item) => sum + price(item), 0);
}

export class Cart {
  private items: Item[] = [];

  async checkout(user: User): Promise<Order> {
    const order = await submit(this.items);
    return order;
  }
}

const applyCoupon = (code: string) => {
  throw new Error(code);
};

function outer() {
  function inner() {
    return 1;
  }
  throw new Error('after inner');
}
`.split('\n');

const at = (text: string) => SOURCE.findIndex((line) => line.includes(text));

describe('enclosingFunction', () => {
  it('finds function declarations, methods and arrow functions', () => {
    expect(enclosingFunction(SOURCE, at("throw new Error('empty cart')"))).toBe('total');
    expect(enclosingFunction(SOURCE, at('await submit'))).toBe('checkout');
    expect(enclosingFunction(SOURCE, at('throw new Error(code)'))).toBe('applyCoupon');
  });

  it('skips functions that closed above the line', () => {
    expect(enclosingFunction(SOURCE, at("throw new Error('after inner')"))).toBe('outer');
  });

  it('does not take if or for for a function, and gives up at top level', () => {
    expect(enclosingFunction(['if (x) {', '  boom();', '}'], 1)).toBeNull();
    expect(enclosingFunction(SOURCE, at('import { price }'))).toBeNull();
  });
});
