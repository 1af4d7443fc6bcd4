import type { Issue } from '../api';
import { Badge } from '../components';

export function issueTitle(issue: Pick<Issue, 'type' | 'message'>): string {
  if (issue.type && issue.message) return `${issue.type}: ${issue.message}`;
  return issue.type || issue.message || '(no message)';
}

export function StateBadge({ state }: { state: string }) {
  return <Badge kind={state}>{state}</Badge>;
}

export function LevelMarker({ level }: { level?: string }) {
  const name = level || 'error';
  return (
    <span class={`level-marker level-${name}`} title={`Level: ${name}`}>
      <span class="sr-only">Level {name}</span>
    </span>
  );
}
