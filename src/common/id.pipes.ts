import { BadRequestException, PipeTransform } from '@nestjs/common';

const INT_PATTERN = /^[1-9]\d{0,9}$/;
const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** An integer id as paths spell it (1 to 2^31 − 1), or undefined. */
export function parseId(value: string | undefined): number | undefined {
  const id = value !== undefined && INT_PATTERN.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(id) && id <= 2_147_483_647 ? id : undefined;
}

/**
 * Integer path ids: anything else is a 400 naming the parameter, never a database error.
 * Not an @Injectable: it is used as `IdPipe` or `new IdPipe('project_id')`.
 */
export class IdPipe implements PipeTransform<string, number> {
  constructor(private readonly name = 'id') {}

  transform(value: string): number {
    const id = parseId(value);
    if (id === undefined) throw new BadRequestException(`${this.name} must be a positive integer`);
    return id;
  }
}

/** Event ids are UUIDs; SDKs send them without dashes, so both spellings are accepted. */
export class EventIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID_PATTERN.test(value)) throw new BadRequestException('id must be a UUID');
    return normaliseUuid(value);
  }
}

export function normaliseUuid(value: string): string {
  const hex = value.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
