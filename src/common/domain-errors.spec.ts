import { Logger } from '@nestjs/common';
import { describeError } from '../http/api-error.filter';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  MovedError,
  NotFoundError,
} from './domain-errors';

describe('domain errors', () => {
  const logger = new Logger('test');

  it.each([
    ['NotFoundError', 404, new NotFoundError('issue not found')],
    ['ConflictError', 409, new ConflictError('could not allocate a unique slug, try again')],
    ['InvalidInputError', 400, new InvalidInputError('cursor is not valid')],
    ['ForbiddenError', 403, new ForbiddenError('a viewer cannot change issues')],
    ['GoneError', 410, new GoneError('the invitation has expired')],
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

describe('MovedError', () => {
  const moved = new MovedError('issue 12 was merged into issue 7', '/api/issues/12', '/api/issues/7', {
    merged_into_id: 7,
  });

  it('sends a request for the thing, or anything under it, to the same place under the new one', () => {
    expect(moved.locationFor('/api/issues/12')).toBe('/api/issues/7');
    expect(moved.locationFor('/api/issues/12/events?limit=2')).toBe('/api/issues/7/events?limit=2');
    expect(moved.locationFor('/api/issues/12?x=1')).toBe('/api/issues/7?x=1');
  });

  it('does not mistake another id with the same digits for it', () => {
    expect(moved.locationFor('/api/issues/123')).toBe('/api/issues/7');
    expect(moved.locationFor(undefined)).toBe('/api/issues/7');
  });
});
