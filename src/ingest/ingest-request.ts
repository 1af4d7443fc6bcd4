import { BadRequestException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { QueuedEvent } from '../digest/digest-job';
import { parseContentEncoding } from './body-reader';
import { canonicalUuid } from './client-key';
import type { EventPayloadFacts } from './event-payload';

// What ingest reads off a request and its envelope header besides the items (pure).

export function isBrotli(request: IncomingMessage): boolean {
  return parseContentEncoding(request.headers['content-encoding'] as string | undefined) === 'br';
}

/** The `dsn` of an envelope header line, if the line is a JSON object that has one. */
export function headerDsn(line: string): unknown {
  try {
    const header = JSON.parse(line) as unknown;
    return header !== null && typeof header === 'object' ? (header as { dsn?: unknown }).dsn : undefined;
  } catch {
    return undefined;
  }
}

export function resolveEventId(headerId: unknown, facts: EventPayloadFacts | undefined): string {
  const raw = headerId ?? facts?.eventId;
  if (raw === undefined || raw === null) return randomUUID();
  const id = typeof raw === 'string' ? canonicalUuid(raw) : undefined;
  if (id === undefined) throw new BadRequestException('event_id must be a UUID');
  return id;
}

export function sdkOf(value: unknown): QueuedEvent['sdk'] {
  if (value === null || typeof value !== 'object') return undefined;
  const { name, version } = value as { name?: unknown; version?: unknown };
  const sdk: NonNullable<QueuedEvent['sdk']> = {};
  if (typeof name === 'string') sdk.name = name;
  if (typeof version === 'string') sdk.version = version;
  return sdk.name || sdk.version ? sdk : undefined;
}
