import { classifyDatabaseError } from './database-errors';

function pgError(code: string, message = 'error'): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyDatabaseError', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    [
      'admin shutdown (pg_ctl stop -m fast)',
      pgError('57P01', 'terminating connection due to administrator command'),
    ],
    ['the server starting up', pgError('57P03', 'the database system is starting up')],
    ['a connection exception', pgError('08006')],
    ['too many connections', pgError('53300')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['a server that stopped answering', new Error('Query read timeout')],
  ])('reads %s as the database being unavailable', (_, error) => {
    expect(classifyDatabaseError(error)).toBe('unavailable');
  });

  it('looks through TypeORM QueryFailedError to the driver error', () => {
    const wrapped = Object.assign(new Error('query failed'), {
      driverError: { code: '57P01', message: 'x' },
    });
    expect(classifyDatabaseError(wrapped)).toBe('unavailable');
  });

  it.each(['40001', '40P01'])('reads %s as a conflict worth retrying at once', (code) => {
    expect(classifyDatabaseError(pgError(code))).toBe('conflict');
  });

  it.each([
    ['invalid byte sequence / NUL in text', '22P05'],
    ['a unique violation', '23505'],
    ['a value too large to index', '54000'],
    ['an undefined column', '42703'],
  ])('reads %s as a problem with the data', (_, code) => {
    expect(classifyDatabaseError(pgError(code))).toBe('data');
  });

  it('does not mistake a bug for an outage', () => {
    expect(classifyDatabaseError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      'unknown',
    );
    expect(classifyDatabaseError(undefined)).toBe('unknown');
  });
});
