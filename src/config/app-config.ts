import type { ResolvedConfig } from './environment';

/**
 * Injection token and type for the validated configuration. Code reads settings from here,
 * never from process.env, so that every value has been checked once at boot.
 * (A class, so that Nest can inject it by type; merged with the interface for typed fields.)
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class AppConfig {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface AppConfig extends ResolvedConfig {}
