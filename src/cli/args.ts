/** `token:create --description ci --flag=value` → command and flags. Values are required. */
export interface ParsedArgs {
  command: string | undefined;
  flags: Record<string, string>;
}

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [command, ...rest] = argv;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new UsageError(`unexpected argument "${arg}"`);
    const [, name, inline] = match;
    if (inline !== undefined) {
      flags[name] = inline;
    } else if (i + 1 < rest.length && !rest[i + 1].startsWith('--')) {
      flags[name] = rest[++i];
    } else {
      throw new UsageError(`--${name} needs a value`);
    }
  }
  return { command, flags };
}

/** The flags a command takes: a missing one or an unknown one is a usage error. */
export function takeFlags<K extends string>(
  flags: Record<string, string>,
  required: readonly K[],
  optional: readonly string[] = [],
): Record<K, string> {
  const known = new Set<string>([...required, ...optional]);
  const unknown = Object.keys(flags).find((name) => !known.has(name));
  if (unknown !== undefined) throw new UsageError(`unknown option --${unknown}`);
  const missing = required.find((name) => flags[name] === undefined);
  if (missing !== undefined) throw new UsageError(`missing --${missing}`);
  return flags as Record<K, string>;
}
