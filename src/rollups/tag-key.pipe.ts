import { BadRequestException, PipeTransform } from '@nestjs/common';
import { MAX_TAG_KEY_LENGTH, TAG_KEY_PATTERN } from './event-tags';

/** Tag keys as the digest indexes them; anything else cannot have values. */
export class TagKeyPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (value.length === 0 || value.length > MAX_TAG_KEY_LENGTH || !TAG_KEY_PATTERN.test(value)) {
      throw new BadRequestException(
        `key must be 1 to ${MAX_TAG_KEY_LENGTH} letters, digits or _ . : - characters`,
      );
    }
    return value;
  }
}
