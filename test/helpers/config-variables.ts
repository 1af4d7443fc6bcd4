import { getMetadataStorage } from 'class-validator';
import { Environment } from '../../src/config/environment';

/** The service's configuration variables (src/config/environment.ts), read from its validation metadata. */
export function configurationVariables(): string[] {
  return [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(Environment, '', true, false)
        .map((metadata) => metadata.propertyName),
    ),
  ];
}
