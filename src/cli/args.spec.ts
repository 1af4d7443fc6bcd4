import { parseArgs, takeFlags, UsageError } from './args';

describe('parseArgs', () => {
  it('reads a command and its flags in both spellings', () => {
    expect(parseArgs(['token:create', '--description', 'ci runner', '--x=a=b'])).toEqual({
      command: 'token:create',
      flags: { description: 'ci runner', x: 'a=b' },
    });
    expect(parseArgs([])).toEqual({ command: undefined, flags: {} });
  });

  it('rejects stray arguments and flags without a value', () => {
    expect(() => parseArgs(['token:create', 'ci'])).toThrow(new UsageError('unexpected argument "ci"'));
    expect(() => parseArgs(['token:create', '--description'])).toThrow(
      new UsageError('--description needs a value'),
    );
    expect(() => parseArgs(['user:create', '--email', '--password', 'x'])).toThrow(UsageError);
  });
});

describe('takeFlags', () => {
  it('requires the listed flags and refuses unknown ones', () => {
    expect(takeFlags({ email: 'a@b.c', password: 'x' }, ['email', 'password'])).toEqual({
      email: 'a@b.c',
      password: 'x',
    });
    expect(() => takeFlags({ email: 'a@b.c' }, ['email', 'password'])).toThrow(
      new UsageError('missing --password'),
    );
    expect(() => takeFlags({ descr: 'x' }, [], ['description'])).toThrow(
      new UsageError('unknown option --descr'),
    );
  });
});
