import { outcomeField, readOutcomeFields } from './outcome-fields';

describe('outcome fields', () => {
  it('reads back what was written, to the hour', () => {
    const at = Date.parse('2026-11-26T10:42:13Z');
    const field = outcomeField(42, at, {
      outcome: 'client_discard',
      category: 'error',
      reason: 'before_send',
      quantity: 3,
    });
    expect(readOutcomeFields({ [field]: '7' })).toEqual([
      {
        hour: new Date('2026-11-26T10:00:00Z'),
        projectId: 42,
        outcome: 'client_discard',
        category: 'error',
        reason: 'before_send',
        quantity: 7,
      },
    ]);
  });

  it('skips fields and values it never writes', () => {
    expect(
      readOutcomeFields({
        '1:2:accepted:error:x': '1',
        '1:2:nonsense:error:x': '1',
        '1:2:invalid:error': '1',
        '1:2:invalid:error:x': '-3',
        '1:2:invalid:error:y': 'many',
      }),
    ).toEqual([]);
  });
});
