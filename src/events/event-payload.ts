import type { NormalisedEvent } from './normalised-event';

/** Fields of the full event that are stored in columns of their own, hence not again in the payload. */
export const COLUMN_FIELDS = ['event_id', 'timestamp', 'level', 'environment', 'release'] as const;

/** The columns an event row keeps beside its payload. */
export interface EventColumns {
  id: string;
  timestamp: Date;
  level: string;
  environment: string | null;
  release: string | null;
}

/**
 * The payload column of a stored event: the normalised event with what grouping decided about it,
 * minus what the row's columns already hold (see `fullEvent` for the way back).
 */
export function storedPayload(
  event: NormalisedEvent,
  group: { key: string; components: string[]; title: string; culprit: string },
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    ...event,
    title: group.title,
    culprit: group.culprit,
    grouping: { key: group.key, components: group.components },
  };
  for (const field of COLUMN_FIELDS) delete payload[field];
  return payload;
}

/** The full event as served by GET /api/events/:id: the payload with its column fields put back. */
export function fullEvent(payload: Record<string, unknown>, columns: EventColumns): Record<string, unknown> {
  return {
    ...payload,
    event_id: columns.id,
    timestamp: columns.timestamp.toISOString(),
    level: columns.level,
    environment: columns.environment,
    release: columns.release,
  };
}
