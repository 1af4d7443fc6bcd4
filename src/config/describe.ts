/**
 * What the documentation says of each configuration variable, attached to its property of
 * `Environment` (environment-variables.ts) next to its validation: the class is the one declaration
 * from which validation, docs/configuration.md and .env.example all come (`npm run docs:config`).
 */

/** The sections of docs/configuration.md and .env.example, in their order. */
export const CONFIG_SECTIONS = {
  server: 'HTTP server',
  storage: 'PostgreSQL and Redis',
  ingest: 'Ingest',
  attachments: 'Attachments and file storage',
  digest: 'Digest',
  retention: 'Retention',
  accounts: 'Accounts and sign-in',
  sso: 'Single sign-on',
  alerts: 'Alerts and e-mail',
  crons: 'Cron monitors',
  uptime: 'Uptime monitors and status pages',
  monitoring: 'Logging and monitoring',
} as const;
export type ConfigSection = keyof typeof CONFIG_SECTIONS;

export interface VariableDescription {
  section: ConfigSection;
  /** Markdown, one paragraph; links are relative to docs/. */
  description: string;
  /** Holds a credential (or may): kept out of ConfigMaps, logs and repositories. */
  secret: boolean;
  /**
   * Only for a variable without a default value in the class: the default it amounts to, in
   * Markdown (e.g. `` `http://localhost:<PORT>` ``); "none" without it. A class default is shown as is.
   */
  defaultText?: string;
  /** Only for a variable without a default value: the value shown, commented out, in .env.example. */
  example?: string;
}

export interface DescribedVariable extends VariableDescription {
  name: string;
}

const described = new Map<object, DescribedVariable[]>();

/** Documents one configuration variable (a property of the configuration class). */
export function Describe(description: VariableDescription): PropertyDecorator {
  return (prototype, property) => {
    const list = described.get(prototype.constructor) ?? [];
    list.push({ name: String(property), ...description });
    described.set(prototype.constructor, list);
  };
}

/** The described variables of a configuration class, in declaration order. */
export function describedVariables(target: new () => object): DescribedVariable[] {
  // The declaration may span a chain of classes (see environment-server.ts): base classes first.
  const chain: object[] = [];
  for (let type: object | null = target; type && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    chain.unshift(type);
  }
  return chain.flatMap((type) => described.get(type) ?? []);
}
