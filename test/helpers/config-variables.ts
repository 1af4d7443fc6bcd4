/**
 * The service's configuration variables, from their one declaration (the `Environment` class in
 * src/config/environment-variables.ts, each property with its validation and `@Describe`).
 */
export { configurationVariables } from '../../src/config/config-docs';
