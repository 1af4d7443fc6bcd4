/**
 * What scrubbing costs the digest worker, for bench/digest.ts: the same events drained by a fresh
 * worker into a project with scrubbing off and into one with it on (the default), in rounds ordered
 * off, on, on, off, off, on… so that a drift of the machine weighs on both alike; the median of
 * each mode is compared. Each event is the bench's @sentry/node fixture with a login request added
 * as frameworks send it (form body, cookies, headers, query string), so that scrubbing has secrets
 * to replace, not only text to read. The scrubber's own CPU per event, measured in this process on
 * the same events, is printed beside it: it moves less with the load of the machine.
 */
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Client } from 'pg';
import { QueueName } from '../src/common/queues';
import type { QueuedEvent } from '../src/digest/digest-job';
import { normaliseEvent, parseEventPayload } from '../src/digest/event-normaliser';
import { openQueue } from '../src/jobs/queue-layout';
import { DEFAULT_SCRUB_SETTINGS, EventScrubber } from '../src/privacy/scrubbing/event-scrubber';
import { drainWithWorker, fillDigestQueue } from './digest-worker';
import { deleteKeys, fixtureEventOfGroup, REDIS_URL } from './support';

export interface ScrubbingComparison {
  eventsPerRound: number;
  /** Worker CPU per event in µs, per round, in the order run. */
  rounds: { scrubbing: 'off' | 'on'; workerCpuUsPerEvent: number; failed: number }[];
  offUsPerEvent: number;
  onUsPerEvent: number;
  /** on / off: 1.10 is the target's bound. */
  ratio: number;
  /** The scrubber alone, in this process, per event (µs). */
  scrubberUsPerEvent: number;
}

const LOGIN_REQUEST = {
  url: 'https://shop.example/login?next=/account&access_token=abc123',
  method: 'POST',
  query_string: 'next=/account&access_token=abc123',
  data: 'username=ann&password=hunter2&remember=1',
  cookies: { sessionid: 'f00d', theme: 'dark', csrftoken: 'c5rf' },
  headers: {
    Host: 'shop.example',
    'User-Agent':
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    Accept: 'text/html,application/xhtml+xml',
    Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
    Cookie: 'sessionid=f00d; theme=dark; csrftoken=c5rf',
    'Content-Type': 'application/x-www-form-urlencoded',
  },
};

export async function compareScrubbing(options: {
  pg: Client;
  databaseName: string;
  databaseUrl: string;
  redis: Redis;
  events: number;
  groups: number;
  eventsPerJob: number;
  concurrency?: string;
  sdk?: QueuedEvent['sdk'];
  /** Pairs of rounds (one off, one on). */
  pairs: number;
}): Promise<ScrubbingComparison> {
  const rounds: ScrubbingComparison['rounds'] = [];
  const order = Array.from({ length: options.pairs }, (_, pair) =>
    pair % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const),
  ).flat();
  for (const scrubbing of order) {
    const { rows } = await options.pg.query<{ id: number }>(
      'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
      [`bench-scrub-${scrubbing}-${randomUUID().slice(0, 8)}`, randomUUID()],
    );
    const projectId = rows[0].id;
    if (scrubbing === 'off')
      await options.pg.query(
        'INSERT INTO project_privacy_settings (project_id, scrub_data) VALUES ($1, false)',
        [projectId],
      );
    const prefix = `bench-scrub-${randomUUID().slice(0, 8)}`;
    const queue = openQueue({ REDIS_URL, REDIS_CLUSTER: false, REDIS_PREFIX: prefix }, QueueName.Digest, {
      offlineQueue: true,
    });
    const events = loginEvents(projectId, options.events, options.groups, options.sdk);
    const jobCount = await fillDigestQueue(queue, events, options.eventsPerJob);
    console.log(`scrubbing ${scrubbing}: ${options.events} events …`);
    const drain = await drainWithWorker({ ...options, queue, prefix, jobCount });
    rounds.push({
      scrubbing,
      workerCpuUsPerEvent: Math.round((drain.cpuSpent.worker * 1000) / options.events),
      failed: drain.failed,
    });
    await queue.close();
    await deleteKeys(options.redis, `${prefix}:*`);
  }
  const median = (mode: 'off' | 'on') => {
    const sorted = rounds
      .filter((round) => round.scrubbing === mode)
      .map((round) => round.workerCpuUsPerEvent)
      .sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2);
  };
  const offUsPerEvent = median('off');
  const onUsPerEvent = median('on');
  return {
    eventsPerRound: options.events,
    rounds,
    offUsPerEvent,
    onUsPerEvent,
    ratio: Math.round((onUsPerEvent / offUsPerEvent) * 1000) / 1000,
    scrubberUsPerEvent: scrubberAlone(
      loginEvents(0, Math.min(options.events, 5_000), options.groups, options.sdk),
    ),
  };
}

function loginEvents(
  projectId: number,
  count: number,
  groups: number,
  sdk?: QueuedEvent['sdk'],
): QueuedEvent[] {
  const baseTime = Date.now() - count;
  return Array.from({ length: count }, (_, index) => {
    const eventId = randomUUID();
    const event = { ...fixtureEventOfGroup('Scrub', index % groups), request: LOGIN_REQUEST };
    Object.assign(event, { event_id: eventId.replace(/-/g, ''), timestamp: (baseTime + index) / 1000 });
    return {
      projectId,
      eventId,
      receivedAt: baseTime + index,
      payload: JSON.stringify(event),
      ...(sdk ? { sdk } : {}),
    };
  });
}

/** The default scrubber's CPU per event on these events, normalised beforehand; the first fifth warms it up. */
function scrubberAlone(jobs: QueuedEvent[]): number {
  const events = jobs.map((job) =>
    normaliseEvent(parseEventPayload(job.payload), {
      eventId: job.eventId,
      receivedAt: job.receivedAt,
      sdk: job.sdk,
    }),
  );
  const scrubber = new EventScrubber(DEFAULT_SCRUB_SETTINGS);
  const warm = Math.floor(events.length / 5);
  for (const event of events.slice(0, warm)) scrubber.scrub(event);
  const started = process.cpuUsage();
  for (const event of events.slice(warm)) scrubber.scrub(event);
  const spent = process.cpuUsage(started);
  return Math.round(((spent.user + spent.system) / (events.length - warm)) * 10) / 10;
}
