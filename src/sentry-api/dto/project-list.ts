import { ValidateBy } from 'class-validator';

/** Project slugs, or ids: sentry-cli 3.x sends all-digit projects as numbers. */
export function IsProjectList() {
  return ValidateBy({
    name: 'isProjectList',
    validator: {
      validate: (value: unknown) =>
        Array.isArray(value) &&
        value.every(
          (item) =>
            (typeof item === 'string' && item.length >= 1 && item.length <= 100) ||
            (typeof item === 'number' && Number.isInteger(item) && item > 0),
        ),
      defaultMessage: () => 'projects must be a list of project slugs or ids',
    },
  });
}
