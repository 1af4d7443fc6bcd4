import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** A wrong type explains more than a failed length check on the same value, so it is reported first. */
const TYPE_CONSTRAINTS = ['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isArray', 'isIn', 'isEnum'];

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
 * Path parameters are left as the strings they are: their own pipes (IdPipe, EventIdPipe) decide
 * what a valid id is. Converting them first would let `1e3` or `0x10` through as 1000 and 16.
 */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'param') return Promise.resolve(value);
    return super.transform(value, metadata);
  }
}

/** The one validation pipe: unknown fields and wrong types are 400s naming the field. */
export function createValidationPipe(): ValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) =>
      new BadRequestException(firstMessage(errors) ?? 'request body is invalid'),
  });
}
