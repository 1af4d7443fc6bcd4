/**
 * The grouping key of a monitor's issue: one issue per monitor and environment. Event grouping keys
 * are `<version>:<hex digest>` (src/digest/grouping.ts), so no event can ever land in a monitor's issue.
 */
export function monitorGroupingKey(kind: 'cron' | 'uptime', monitorId: number, environment: string): string {
  return `monitor:${kind}:${monitorId}:${environment}`;
}

/** The monitor and environment a monitor issue's grouping key names, or null for any other key. */
export function monitorOfGroupingKey(
  key: string,
): { kind: 'cron' | 'uptime'; monitor_id: number; environment: string } | null {
  const match = /^monitor:(cron|uptime):(\d+):/.exec(key);
  if (!match) return null;
  return {
    kind: match[1] as 'cron' | 'uptime',
    monitor_id: Number(match[2]),
    environment: key.slice(match[0].length),
  };
}
