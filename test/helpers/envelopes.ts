import { randomUUID } from 'node:crypto';
import type { TestApp } from './app';
import { ServedEvent, storedEvent } from './queues';

/** A project as POST /api/projects answers it: what an SDK's DSN carries. */
export interface IngestTarget {
  id: number;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

/** Posts an envelope (its lines: header, then item headers and payloads) to ingest as an SDK does; expects 200. */
export function postEnvelope(t: Pick<TestApp, 'http'>, project: IngestTarget, lines: string[]) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(lines.join('\n'))
    .expect(200);
}

/** Sends one event through ingest and waits until the digest has stored it; returns it as the API serves it. */
export async function sendStoredEvent(
  t: Pick<TestApp, 'http' | 'api'>,
  project: IngestTarget,
  event: Record<string, unknown>,
): Promise<ServedEvent> {
  const eventId = randomUUID();
  await postEnvelope(t, project, [
    '{}',
    '{"type":"event"}',
    JSON.stringify({ event_id: hex(eventId), ...event }),
  ]);
  return storedEvent(t, eventId, 30_000);
}
