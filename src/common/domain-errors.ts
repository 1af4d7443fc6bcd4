/**
 * Errors the domain services throw when a request cannot be carried out. They say what went wrong
 * in the domain's words; `describeError` (api-error.filter.ts) is the one place that turns a kind
 * into an HTTP status, so services stay free of HTTP and the same rule applies on every route.
 * The message is written for the client and is sent as `{ "error": message }`.
 */
export type DomainErrorKind =
  'not_found' | 'conflict' | 'invalid_input' | 'forbidden' | 'gone' | 'moved' | 'not_implemented';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The thing asked for does not exist (or no longer does). */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

/** The request clashes with the current state; trying again may succeed. */
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
}

/** The request itself is wrong (a value, a cursor, a reference to something that does not exist). */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid_input';
}

/**
 * Who asks may see the thing but not do this to it (a viewer changing an issue, a read-only token
 * writing). What they may not even see is a NotFoundError, so that its existence stays hidden.
 */
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
}

/** The thing existed but is used up or past its time (an accepted or expired invitation). */
export class GoneError extends DomainError {
  readonly kind = 'gone';
}

/**
 * A part of an API this server imitates (Sentry's, for sentry-cli) that it does not serve: a 501,
 * which sentry-cli reports with the message, where a 404 gets a fixed "not found" of its own.
 */
export class NotImplementedError extends DomainError {
  readonly kind = 'not_implemented';
}

/**
 * The thing asked for lives elsewhere now (an issue merged into another): the answer points there,
 * with `Location` and the new id in the body, for every method (308 keeps the method).
 */
export class MovedError extends DomainError {
  readonly kind = 'moved';

  /**
   * `from` and `to` are path prefixes (`/api/issues/12` → `/api/issues/7`): a request for anything
   * under `from` (its events, stats, …) is sent to the same thing under `to`.
   */
  constructor(
    message: string,
    readonly from: string,
    readonly to: string,
    readonly details: Record<string, number | string>,
  ) {
    super(message);
  }

  /** Where the request for `path` now goes. */
  locationFor(path: string | undefined): string {
    const rest = path?.startsWith(this.from) ? path.slice(this.from.length) : undefined;
    if (rest !== undefined && (rest === '' || rest.startsWith('/') || rest.startsWith('?')))
      return this.to + rest;
    return this.to;
  }
}
