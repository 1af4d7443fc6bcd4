import { isSmallItemType, SMALL_ITEM_BUDGETS, SmallItems } from './small-items';

describe('SmallItems', () => {
  it('knows the small record types and no others', () => {
    expect(isSmallItemType('client_report')).toBe(true);
    expect(isSmallItemType('check_in')).toBe(true);
    expect(isSmallItemType('attachment')).toBe(false);
    expect(isSmallItemType('toString')).toBe(false);
  });

  it('charges each kept record to its own type’s budget and keeps skipped places as undefined', () => {
    const items = new SmallItems();
    expect(items.size).toBe(0);
    expect(items.budgetLeft('session')).toBe(SMALL_ITEM_BUDGETS.session);
    const update = { header: { type: 'session' }, payload: '{"sid":"ü"}' };
    items.keep('session', update);
    items.skip('session');
    expect(items.budgetLeft('session')).toBe(SMALL_ITEM_BUDGETS.session - Buffer.byteLength(update.payload));
    expect(items.budgetLeft('check_in')).toBe(SMALL_ITEM_BUDGETS.check_in);
    expect(items.ofType('session')).toEqual([update, undefined]);
    expect(items.has('session')).toBe(true);
    expect(items.has('check_in')).toBe(false);
    expect(items.ofType('check_in')).toEqual([]);
    expect(items.size).toBe(1);
  });
});
