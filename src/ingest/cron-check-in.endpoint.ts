import {
  BadRequestException,
  Injectable,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { readCheckInFields } from '../monitors/crons/check-in-record';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { CheckInIntake, readingOutcomes } from './check-in-intake';
import { CheckInLimits } from '../limits/category-limits';
import { categoryRejection } from './limit-rejections';
import { canonicalUuid } from './client-key';
import { parseProjectId } from './ingest.service';
import { ProjectKeys } from './project-keys';

/** A check-in's JSON body is a few fields and perhaps a monitor_config. */
const MAX_BODY_BYTES = 64 * 1024;

export const CRON_CHECK_IN_ROUTE = /^\/api\/([^/]+)\/cron\/([^/]+)\/([^/]+)\/?$/;

/**
 * The HTTP check-in URL that needs only the DSN, as Relay serves it:
 * `/api/{project_id}/cron/{monitor_slug}/{public_key}/`, by GET (the fields in the query) or POST
 * (in the query, or a JSON body, whose fields win): `status` (in_progress, ok, error),
 * `check_in_id` (to close a check-in opened earlier; left out: the latest in-progress one),
 * `environment`, `duration` (seconds), `monitor_config`. Answered 202 once the check-in is on the
 * queue; every refusal is a 4xx with its reason.
 */
@Injectable()
export class CronCheckInEndpoint {
  constructor(
    private readonly projectKeys: ProjectKeys,
    private readonly intake: CheckInIntake,
    private readonly outcomes: OutcomeCounter,
    private readonly limits: CheckInLimits,
  ) {}

  async checkIn(
    request: IncomingMessage,
    rawProjectId: string,
    rawSlug: string,
    rawKey: string,
    query: URLSearchParams,
  ): Promise<Record<string, string>> {
    const projectId = parseProjectId(rawProjectId);
    const key = canonicalUuid(decodeSegment(rawKey));
    if (key === undefined) {
      request.resume();
      throw new UnauthorizedException(`malformed client key for project ${projectId}`);
    }
    const valid = this.projectKeys.isValid(projectId, key);
    if (!(valid === true || (valid !== false && (await valid)))) {
      request.resume();
      throw new UnauthorizedException(
        `unknown client key for project ${projectId}: use the DSN of this project`,
      );
    }
    const fields: Record<string, unknown> = Object.fromEntries(query.entries());
    if (request.method === 'POST') Object.assign(fields, await readJsonBody(request));
    else request.resume();
    const reading = readCheckInFields(fields, projectId, Date.now(), {
      idRequired: false,
      slug: decodeSegment(rawSlug),
    });
    const outcomes = readingOutcomes(reading);
    if (outcomes.length > 0) this.outcomes.count(projectId, outcomes);
    if ('refused' in reading) throw new BadRequestException(reading.message);
    if (reading.configRefused !== undefined) {
      throw new BadRequestException(`invalid monitor_config: ${reading.configRefused}`);
    }
    // Counted once it is known to be kept: a refused check-in never uses up the limit.
    const allowance = await this.limits.take(projectId, 1);
    if (allowance.refused > 0) {
      const refusal = categoryRejection(this.limits, allowance);
      this.outcomes.count(projectId, refusal.outcomes!);
      throw refusal;
    }
    await this.intake.enqueueCounted(projectId, [reading.checkIn]);
    return reading.checkIn.checkInId ? { id: reading.checkIn.checkInId } : {};
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequestException('the URL is not valid percent-encoding');
  }
}

async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') {
    request.resume();
    throw new UnsupportedMediaTypeException('send the check-in body uncompressed');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      request.resume();
      throw new PayloadTooLargeException(`a check-in body is at most ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  const type = String(request.headers['content-type'] ?? '');
  if (type.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequestException('the body is not JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestException('the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
