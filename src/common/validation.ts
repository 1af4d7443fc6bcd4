import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** A wrong type explains more than a failed length check on the same value, so it is reported first. */
const TYPE_CONSTRAINTS = [
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isArray',
  'isIn',
  'isEnum',
];

function mainConstraint(constraints: Record<string, string> | undefined): string | undefined {
  if (!constraints) return undefined;
  const typeKey = TYPE_CONSTRAINTS.find((key) => key in constraints);
  return typeKey ? constraints[typeKey] : Object.values(constraints)[0];
}

function firstMessage(errors: ValidationError[], path = ''): string | undefined {
  for (const error of errors) {
    const field = path ? `${path}.${error.property}` : error.property;
    const constraint = mainConstraint(error.constraints);
    if (constraint) {
      // class-validator names the property, but not its parents: make nested fields unambiguous.
      return path ? constraint.replace(error.property, field) : constraint;
    }
    const nested = firstMessage(error.children ?? [], field);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * Nest's prototype-key stripping, class-transformer and class-validator all walk a body recursively:
 * a JSON body of 1 MiB can nest 500,000 levels deep, which overflows the stack (a 500), and a flat
 * array of 400,000 items keeps the event loop busy for over a second. No body of this API comes
 * anywhere near either limit.
 */
export const MAX_BODY_DEPTH = 32;
export const MAX_BODY_VALUES = 10_000;
export const TOO_DEEP = `request body is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`;

/** Why a parsed body is refused before validation walks it, or undefined. Iterative on purpose. */
export function bodyShapeProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  let values = 1;
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) return TOO_DEEP;
    const children = Object.values(current);
    values += children.length;
    if (values > MAX_BODY_VALUES) return `request body has too many values (more than ${MAX_BODY_VALUES})`;
    for (const child of children) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Path parameters are left as the strings they are: their own pipes (IdPipe, EventIdPipe) decide
 * what a valid id is. Converting them first would let `1e3` or `0x10` through as 1000 and 16.
 */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'param') return Promise.resolve(value);
    if (metadata.type === 'body') {
      const problem = bodyShapeProblem(value);
      if (problem) return Promise.reject(new BadRequestException(problem));
    }
    return super.transform(value, metadata);
  }
}

/** The one validation pipe: unknown fields and wrong types are 400s naming the field. */
export function createValidationPipe(): ValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(firstMessage(errors) ?? 'request body is invalid'),
  });
}
