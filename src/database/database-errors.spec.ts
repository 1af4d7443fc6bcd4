import {
  classifyDatabaseError,
  DatabaseFailure,
  describeDatabaseError,
  failureOfReason,
  outageMayBeTheData,
  SQLSTATE_CLASSES,
} from './database-errors';

/** What node-postgres gives for an error of a connection's start: its own DatabaseError, not wrapped by TypeORM. */
function connectError(code: string, message: string, severity: string): Error {
  return Object.assign(new Error(message), { name: 'error', length: 120, code, severity });
}

function pgError(code: string, message = 'error', severity = 'ERROR'): Error {
  return Object.assign(new Error(message), { code, severity });
}

/** Every class of PostgreSQL 15's Appendix A, with one code of it and what a statement raising it means. */
const CLASSES: [string, string, DatabaseFailure][] = [
  ['00', '00000', 'unknown'],
  ['01', '01000', 'unknown'],
  ['02', '02000', 'unknown'],
  ['03', '03000', 'unknown'],
  ['08', '08006', 'unavailable'],
  ['09', '09000', 'unknown'],
  ['0A', '0A000', 'unknown'],
  ['0B', '0B000', 'unknown'],
  ['0F', '0F001', 'unknown'],
  ['0L', '0LP01', 'unknown'],
  ['0P', '0P000', 'unknown'],
  ['0Z', '0Z002', 'unknown'],
  ['20', '20000', 'unknown'],
  ['21', '21000', 'data'],
  ['22', '22P05', 'data'],
  ['23', '23505', 'data'],
  ['24', '24000', 'unknown'],
  ['25', '25P02', 'unknown'],
  ['26', '26000', 'unknown'],
  ['27', '27000', 'data'],
  ['28', '28P01', 'unavailable'],
  ['2B', '2BP01', 'unknown'],
  ['2D', '2D000', 'unknown'],
  ['2F', '2F005', 'unknown'],
  ['34', '34000', 'unknown'],
  ['38', '38001', 'unknown'],
  ['39', '39P01', 'unknown'],
  ['3B', '3B001', 'unknown'],
  ['3D', '3D000', 'unavailable'],
  ['3F', '3F000', 'unknown'],
  ['40', '40P01', 'conflict'],
  ['42', '42703', 'unknown'],
  ['44', '44000', 'data'],
  ['53', '53100', 'unavailable'],
  ['54', '54000', 'data'],
  ['55', '55000', 'unknown'],
  ['57', '57P01', 'unavailable'],
  ['58', '58030', 'unavailable'],
  ['72', '72000', 'conflict'],
  ['F0', 'F0001', 'unavailable'],
  ['HV', 'HV00R', 'unknown'],
  ['P0', 'P0001', 'unknown'],
  ['XX', 'XX000', 'unavailable'],
];

describe('classifyDatabaseError', () => {
  it('decides every SQLSTATE class of PostgreSQL, and no other', () => {
    expect(Object.keys(SQLSTATE_CLASSES).sort()).toEqual(CLASSES.map(([name]) => name).sort());
  });

  it.each(CLASSES)('class %s (%s raised by a statement) is %s', (_, code, expected) => {
    expect(classifyDatabaseError(pgError(code))).toBe(expected);
  });

  it.each([
    ['disk full', '53100'],
    ['out of memory', '53200'],
    ['too many connections', '53300'],
    ['configuration limit exceeded', '53400'],
    ['a read-only transaction (a standby after failover)', '25006'],
    ['the idle-in-transaction timeout ending the session', '25P03'],
    ['admin shutdown (pg_ctl stop -m fast)', '57P01'],
    ['crash shutdown', '57P02'],
    ['the server starting up', '57P03'],
    ['the database dropped', '57P04'],
    ['an I/O error', '58030'],
    ['a file the server cannot find', '58P01'],
    ['insufficient privilege (a grant revoked)', '42501'],
    ['the database missing', '3D000'],
    ['a refused password', '28P01'],
    ['data corrupted, outside event data', 'XX001'],
    ['an index corrupted, outside event data', 'XX002'],
  ])('reads %s as the database being unavailable', (_, code) => {
    expect(classifyDatabaseError(pgError(code))).toBe('unavailable');
  });

  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['a server that stopped answering', new Error('Query read timeout')],
  ])('reads %s as the database being unavailable', (_, error) => {
    expect(classifyDatabaseError(error)).toBe('unavailable');
  });

  it('reads any error that ends the session (every error while connecting) as unavailable, whatever its code', () => {
    // A new connection on a full data disk: the relation cache file cannot be written.
    const initFile = pgError('XX000', 'could not write init file', 'FATAL');
    expect(classifyDatabaseError(initFile)).toBe('unavailable');
    expect(classifyDatabaseError(initFile, { onEventData: true })).toBe('unavailable');
    expect(classifyDatabaseError(pgError('42501', 'permission denied for database', 'FATAL'))).toBe(
      'unavailable',
    );
    expect(classifyDatabaseError(pgError('22023', 'invalid value for parameter', 'FATAL'))).toBe(
      'unavailable',
    );
    expect(classifyDatabaseError(pgError('XX000', 'x', 'PANIC'))).toBe('unavailable');
  });

  it('reads an error raised while connecting as unavailable whatever the language of its severity', () => {
    // lc_messages = 'it_IT': the driver passes the translated severity on.
    const initFile = connectError('XX000', 'could not write init file', 'FATALE');
    expect(classifyDatabaseError(initFile, { onEventData: true })).toBe('unavailable');
    expect(describeDatabaseError(initFile)).toBe('could not write init file (SQLSTATE XX000, FATAL)');
    // The same code from a statement, wrapped by TypeORM, is the data's.
    const wrapped = Object.assign(new Error('cache lookup failed'), {
      name: 'QueryFailedError',
      driverError: { name: 'error', length: 120, code: 'XX000', severity: 'ERRORE' },
      code: 'XX000',
    });
    expect(classifyDatabaseError(wrapped, { onEventData: true })).toBe('data');
  });

  it('tells the outages an event may cause itself from those of the server', () => {
    expect(outageMayBeTheData(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(outageMayBeTheData(new Error('Query read timeout'))).toBe(true);
    expect(
      outageMayBeTheData(
        pgError('57P02', 'terminating connection because of crash of another server process'),
      ),
    ).toBe(true);
    expect(outageMayBeTheData(pgError('53200', 'out of memory'))).toBe(true);
    // The server's own state: waited out however long it lasts.
    expect(outageMayBeTheData(pgError('53100', 'could not extend file'))).toBe(false);
    expect(outageMayBeTheData(pgError('25006', 'read-only transaction'))).toBe(false);
    expect(outageMayBeTheData(connectError('XX000', 'could not write init file', 'FATAL'))).toBe(false);
    expect(outageMayBeTheData(pgError('23505', 'duplicate key'))).toBe(false);
  });

  it('reads an internal error on event data as the data’s, and elsewhere as the server’s', () => {
    for (const code of ['XX000', 'XX001', 'XX002']) {
      expect(classifyDatabaseError(pgError(code), { onEventData: true })).toBe('data');
      expect(classifyDatabaseError(pgError(code))).toBe('unavailable');
    }
    // Only the internal errors depend on where they were raised.
    expect(classifyDatabaseError(pgError('53100'), { onEventData: true })).toBe('unavailable');
    expect(classifyDatabaseError(pgError('42703'), { onEventData: true })).toBe('unknown');
  });

  it('looks through TypeORM QueryFailedError to the driver error', () => {
    const wrapped = Object.assign(new Error('query failed'), {
      driverError: { code: '57P01', message: 'x' },
    });
    expect(classifyDatabaseError(wrapped)).toBe('unavailable');
    const fatal = Object.assign(new Error('could not write init file'), {
      driverError: { code: 'XX000', severity: 'FATAL', message: 'could not write init file' },
    });
    expect(classifyDatabaseError(fatal, { onEventData: true })).toBe('unavailable');
  });

  it.each(['40001', '40P01', '40003', '55P03', '55006', '72000'])(
    'reads %s as a conflict worth retrying at once',
    (code) => {
      expect(classifyDatabaseError(pgError(code))).toBe('conflict');
    },
  );

  it.each([
    ['invalid byte sequence / NUL in text', '22P05'],
    ['a unique violation', '23505'],
    ['a value too large to index', '54000'],
    ['an upsert touching one row twice', '21000'],
    ['a deferred constraint at commit', '40002'],
  ])('reads %s as a problem with the data', (_, code) => {
    expect(classifyDatabaseError(pgError(code))).toBe('data');
  });

  it.each([
    ['an undefined column (a schema this version does not expect)', '42703'],
    ['a syntax error', '42601'],
    ['a statement timeout', '57014'],
    ['a transaction timeout', '25P04'],
    ['a feature not supported', '0A000'],
  ])('reads %s as neither an outage nor the data', (_, code) => {
    expect(classifyDatabaseError(pgError(code))).toBe('unknown');
  });

  it('does not mistake a bug for an outage', () => {
    expect(classifyDatabaseError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      'unknown',
    );
    expect(classifyDatabaseError(undefined)).toBe('unknown');
  });
});

describe('failed job reasons', () => {
  it('records the SQLSTATE, and the severity when it ends the session', () => {
    expect(describeDatabaseError(pgError('23505', 'duplicate key'))).toBe('duplicate key (SQLSTATE 23505)');
    expect(describeDatabaseError(pgError('XX000', 'could not write init file', 'FATAL'))).toBe(
      'could not write init file (SQLSTATE XX000, FATAL)',
    );
    expect(describeDatabaseError(new Error('plain'))).toBe('plain');
  });

  it('reads a recorded reason back into the same decision', () => {
    const cases: [Error, boolean][] = [
      [pgError('23505', 'duplicate key'), true],
      [pgError('XX000', 'could not write init file', 'FATAL'), true],
      [pgError('XX000', 'cache lookup failed'), true],
      [pgError('XX000', 'cache lookup failed'), false],
      [pgError('53100', 'could not extend file'), true],
      [pgError('25006', 'cannot execute INSERT in a read-only transaction'), true],
      [pgError('42703', 'column "x" does not exist'), true],
    ];
    for (const [error, onEventData] of cases) {
      const reason = `cannot be stored: ${describeDatabaseError(error)}`;
      expect(failureOfReason(reason, { onEventData })).toBe(classifyDatabaseError(error, { onEventData }));
    }
  });

  it('reads reasons recorded without a code by their message', () => {
    // What earlier versions wrote for a new connection on a full disk.
    expect(failureOfReason('cannot be stored: could not write init file', { onEventData: true })).toBe(
      'unavailable',
    );
    expect(failureOfReason('Connection terminated unexpectedly')).toBe('unavailable');
    expect(failureOfReason('cannot be stored: invalid input syntax for type json')).toBe('unknown');
  });
});
