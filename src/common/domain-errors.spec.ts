import { Logger } from '@nestjs/common';
import { describeError } from './api-error.filter';
import { ConflictError, DomainError, InvalidInputError, NotFoundError } from './domain-errors';

describe('domain errors', () => {
  const logger = new Logger('test');

  it.each([
    ['NotFoundError', 404, new NotFoundError('issue not found')],
    ['ConflictError', 409, new ConflictError('could not allocate a unique slug, try again')],
    ['InvalidInputError', 400, new InvalidInputError('cursor is not valid')],
  ])('%s answers %d with its message', (_name, status, error: DomainError) => {
    const error500 = jest.spyOn(logger, 'error');
    expect(describeError(error, logger)).toEqual({ status, body: { error: error.message } });
    expect(error500).not.toHaveBeenCalled();
  });

  it('names each error after its class', () => {
    expect(new NotFoundError('x').name).toBe('NotFoundError');
    expect(new InvalidInputError('x')).toBeInstanceOf(DomainError);
  });
});
