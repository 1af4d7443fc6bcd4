import { Logger } from '@nestjs/common';
import { describeError } from './api-error.filter';

const logger = new Logger('test');

/** What node-pg raises, as TypeORM's QueryFailedError carries it. */
function databaseError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('describeError', () => {
  it.each([
    ['a deadlock', '40P01', 'deadlock detected'],
    ['a serialization failure', '40001', 'could not serialize access due to concurrent update'],
  ])('answers %s with 409 and a request to send it again, not a 500', (_, code, message) => {
    const { status, body } = describeError(databaseError(code, message), logger);
    expect(status).toBe(409);
    expect(body.error).toMatch(/send it again/);
  });

  it('answers an error of ours with 500 and a reference', () => {
    const { status, body } = describeError(databaseError('42703', 'column "x" does not exist'), logger);
    expect(status).toBe(500);
    expect(body.error).toMatch(/^internal server error \(reference [0-9a-f-]{36}\)$/);
  });
});
