/**
 * Attachments in the chaos suite: beside the event load, a steady trickle of envelopes each holding
 * an event and two files (a small text, a binary of up to 100 KB whose bytes follow from a seed),
 * sent to a project of their own. After the faults, every acknowledged envelope's files must be
 * stored exactly once, byte for byte (the SHA-256 of the blob's chunks as stored), per fault, and at
 * least one must have been acknowledged; no file may be stored for an envelope refused or never sent;
 * no blob may be left that no attachment holds and the pending list does not know (a write that a
 * fault interrupted is either recorded, or due for the sweep); no blob an attachment holds may be on
 * the pending list; and no more blobs may be left staged than the unacknowledged envelopes had files.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { query } from './db';
import { sleep } from './processes';

interface SentFile {
  name: string;
  sha256: string;
  size: number;
}

interface AttachmentRecord {
  id: string;
  phase: string;
  outcome: string;
  files: SentFile[];
}

export interface AttachmentPhaseCheck {
  phase: string;
  acknowledged: number;
  missing: number;
  duplicated: number;
  corrupt: number;
}

export interface AttachmentCheck {
  phases: AttachmentPhaseCheck[];
  /** Envelopes answered 200 over the whole run: none means nothing was checked, a failure. */
  acknowledged: number;
  /**
   * Files stored for envelopes answered with an error status. When the queue refuses the event
   * after its files were recorded, ingest withdraws them; only when PostgreSQL fails that too are
   * they left, and then the sender's retry stores the event, which finds them (a file is stored once
   * per event, name and checksum), or the orphan sweep deletes them a day later. Reported, not a
   * failure: nothing acknowledged is at stake.
   */
  storedThoughRefused: number;
  /** Files stored for events never sent: a failure. */
  storedNeverSent: number;
  /**
   * Files stored for envelopes that got no answer (a timeout, a dropped connection): the sender
   * cannot tell, as for events; reported, not a failure.
   */
  storedUnanswered: number;
  /** Blobs held by no attachment and unknown to the pending list: kept forever, the one thing not allowed. */
  orphans: number;
  /** Blobs left staged, held by nothing: deleted by the sweep once due. */
  pending: number;
  /**
   * At most the files of the envelopes not acknowledged may be left staged (a fault cut their write
   * short); an acknowledged envelope took all of its blobs off the list. With no fault, none.
   */
  pendingAllowed: number;
  /** Blobs on the pending list that an attachment holds: the sweep would delete a stored file. */
  pendingHeld: number;
  passed: boolean;
}

const REQUEST_TIMEOUT_MS = 15_000;

/** Bytes that follow from a seed (so that the check knows what each file must hold). */
function seededBytes(seed: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let offset = 0; offset < size; offset += block.length) {
    block.copy(out, offset);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

export class AttachmentLoad {
  readonly records: AttachmentRecord[] = [];
  private running = false;
  private lane?: Promise<void>;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });

  constructor(
    private readonly url: string,
    private readonly clientKey: string,
    /** The phase the event load is in: attachments are counted against the same faults. */
    private readonly phaseOf: () => string,
    private readonly perSecond = 4,
  ) {}

  start(): void {
    this.running = true;
    this.lane = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.lane;
  }

  destroy(): void {
    this.running = false;
    this.agent.destroy();
  }

  private async run(): Promise<void> {
    const interval = 1000 / this.perSecond;
    while (this.running) {
      const started = performance.now();
      await this.send();
      const wait = interval - (performance.now() - started);
      if (wait > 0) await sleep(wait);
    }
  }

  private send(): Promise<void> {
    const id = randomUUID();
    const hex = id.replace(/-/g, '');
    const text = Buffer.from(`log of ${id}\n`.repeat(20));
    const binary = seededBytes(id, 1_000 + (parseInt(hex.slice(0, 4), 16) % 100_000));
    const files = [
      { name: 'log.txt', data: text, type: 'event.attachment' },
      { name: 'state.dmp', data: binary, type: 'event.minidump' },
    ];
    const event = JSON.stringify({
      event_id: hex,
      message: 'chaos with attachments',
      level: 'error',
      platform: 'native',
    });
    const body = Buffer.concat([
      Buffer.from(
        `${JSON.stringify({ event_id: hex })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(event) })}\n${event}\n`,
      ),
      ...files.flatMap((file) => [
        Buffer.from(
          `${JSON.stringify({ type: 'attachment', length: file.data.length, filename: file.name, attachment_type: file.type })}\n`,
        ),
        file.data,
        Buffer.from('\n'),
      ]),
    ]);
    const record: AttachmentRecord = {
      id,
      phase: this.phaseOf(),
      outcome: 'PENDING',
      files: files.map((file) => ({
        name: file.name,
        sha256: createHash('sha256').update(file.data).digest('hex'),
        size: file.data.length,
      })),
    };
    this.records.push(record);
    const url = new URL(this.url);
    return new Promise<void>((resolve) => {
      const request = httpRequest(
        {
          agent: this.agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-sentry-envelope',
            'Content-Length': String(body.length),
            'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${this.clientKey.replace(/-/g, '')}`,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let ended = false;
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', () => undefined);
          response.on('close', () => {
            if (!ended) record.outcome = 'RESPONSE_ABORTED';
            resolve();
          });
          response.on('end', () => {
            ended = true;
            record.outcome = String(response.statusCode ?? 0);
            if (record.outcome === '200' && !Buffer.concat(chunks).toString('utf8').includes(hex)) {
              record.outcome = '200-badbody';
            }
            resolve();
          });
        },
      );
      request.setTimeout(REQUEST_TIMEOUT_MS, () =>
        request.destroy(Object.assign(new Error('request timed out'), { code: 'TIMEOUT' })),
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (record.outcome === 'PENDING') record.outcome = error.code ?? 'ERROR';
        resolve();
      });
      request.end(body);
    });
  }
}

/** The attachments' project, made beside the event load's. */
export async function createAttachmentProject(
  databaseUrl: string,
): Promise<{ projectId: number; clientKey: string }> {
  const clientKey = randomUUID();
  const [{ id }] = await query<{ id: number }>(
    databaseUrl,
    'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
    ['chaos-attachments', clientKey],
  );
  return { projectId: id, clientKey };
}

/** Every acknowledged envelope's files stored once and intact, per phase; no orphaned blob. */
export async function checkAttachments(
  databaseUrl: string,
  projectId: number,
  load: AttachmentLoad,
): Promise<AttachmentCheck> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = (
      await client.query<{ event_id: string; name: string; sha256: string; size: number; blob_key: string }>(
        'SELECT event_id::text, name, sha256, size::int, blob_key FROM attachments WHERE project_id = $1',
        [projectId],
      )
    ).rows;
    const byEvent = new Map<string, typeof rows>();
    for (const row of rows) byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
    const phases = new Map<string, AttachmentPhaseCheck>();
    const sent = new Set(load.records.map((record) => record.id.replace(/-/g, '')));
    let storedThoughRefused = 0;
    let storedUnanswered = 0;
    let unacknowledgedFiles = 0;
    for (const record of load.records) {
      if (record.outcome !== '200') {
        unacknowledgedFiles += record.files.length;
        const stored = (byEvent.get(record.id) ?? []).length;
        if (/^\d+$/.test(record.outcome)) storedThoughRefused += stored;
        else storedUnanswered += stored;
        continue;
      }
      const check = phases.get(record.phase) ?? {
        phase: record.phase,
        acknowledged: 0,
        missing: 0,
        duplicated: 0,
        corrupt: 0,
      };
      phases.set(record.phase, check);
      check.acknowledged++;
      const stored = byEvent.get(record.id) ?? [];
      for (const file of record.files) {
        const copies = stored.filter((row) => row.name === file.name);
        if (copies.length === 0) check.missing++;
        if (copies.length > 1) check.duplicated++;
        for (const copy of copies) {
          if (copy.sha256 !== file.sha256 || copy.size !== file.size) {
            check.corrupt++;
            continue;
          }
          // The bytes as stored, not only the checksum recorded beside them.
          const hash = createHash('sha256');
          for (let seq = 0; ; seq++) {
            const chunk = await client.query<{ data: Buffer }>(
              'SELECT data FROM blob_chunks WHERE key = $1 AND seq = $2',
              [copy.blob_key, seq],
            );
            if (chunk.rows.length === 0) break;
            hash.update(chunk.rows[0].data);
          }
          if (hash.digest('hex') !== file.sha256) check.corrupt++;
        }
      }
    }
    const storedNeverSent = rows.filter((row) => !sent.has(row.event_id.replace(/-/g, ''))).length;
    const [{ orphans, pending, pendingHeld }] = (
      await client.query<{ orphans: number; pending: number; pendingHeld: number }>(
        `SELECT (SELECT count(DISTINCT c.key)::int FROM blob_chunks c
                  WHERE c.key LIKE $1
                    AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.blob_key = c.key)
                    AND NOT EXISTS (SELECT 1 FROM pending_blobs p WHERE p.key = c.key)) AS orphans,
                (SELECT count(*)::int FROM pending_blobs p WHERE p.key LIKE $1
                    AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.blob_key = p.key)) AS pending,
                (SELECT count(*)::int FROM pending_blobs p WHERE p.key LIKE $1
                    AND EXISTS (SELECT 1 FROM attachments a WHERE a.blob_key = p.key)) AS "pendingHeld"`,
        [`attachments/${projectId}/%`],
      )
    ).rows;
    const list = [...phases.values()];
    const acknowledged = list.reduce((sum, phase) => sum + phase.acknowledged, 0);
    return {
      phases: list,
      acknowledged,
      storedThoughRefused,
      storedNeverSent,
      storedUnanswered,
      orphans,
      pending,
      pendingAllowed: unacknowledgedFiles,
      pendingHeld,
      passed:
        acknowledged > 0 &&
        storedNeverSent === 0 &&
        orphans === 0 &&
        pendingHeld === 0 &&
        pending <= unacknowledgedFiles &&
        list.every((p) => p.missing === 0 && p.duplicated === 0 && p.corrupt === 0),
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function printAttachmentCheck(check: AttachmentCheck, load: AttachmentLoad): void {
  const statuses = new Map<string, number>();
  for (const record of load.records) statuses.set(record.outcome, (statuses.get(record.outcome) ?? 0) + 1);
  console.log(
    `attachments: ${check.passed ? 'PASS' : 'FAIL'} — ${load.records.length} envelopes of an event and two files sent ` +
      `(${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}); ${check.acknowledged} acknowledged; ` +
      `files stored though refused ${check.storedThoughRefused}, never sent ${check.storedNeverSent}, ` +
      `unanswered ${check.storedUnanswered}; ${check.orphans} orphaned blobs, ${check.pending} left staged for the ` +
      `sweep (at most ${check.pendingAllowed}), ${check.pendingHeld} held yet on the pending list`,
  );
  for (const phase of check.phases) {
    const ok = phase.missing === 0 && phase.duplicated === 0 && phase.corrupt === 0;
    console.log(
      `  ${ok ? 'ok  ' : 'FAIL'} ${phase.phase}: ${phase.acknowledged} acknowledged, files missing ${phase.missing}, ` +
        `stored twice ${phase.duplicated}, not intact ${phase.corrupt}`,
    );
  }
}
