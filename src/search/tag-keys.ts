/** Sentry's limits: longer keys or values are not indexed (the event keeps them). */
export const MAX_TAG_KEY_LENGTH = 32;
export const MAX_TAG_VALUE_LENGTH = 200;
export const TAG_KEY_PATTERN = /^[A-Za-z0-9_.:-]+$/;
