import { ApiProperty, ApiPropertyOptional, ApiSchema, OmitType } from '@nestjs/swagger';
import type { WriteProbeResult, WriteProbeStatus } from '../../database/database-write-probe';
import type { WorkerBeat } from '../../jobs/worker-heartbeat';
import type { RedisWriteResult, RedisWriteStatus } from '../redis-write-probe';

const PROBE_STATUSES = ['ok', 'refused', 'unreachable'] as const;
const DEPENDENCY_STATES = ['connected', 'disconnected'] as const;
type DependencyState = (typeof DEPENDENCY_STATES)[number];

@ApiSchema({ description: 'The process answers.' })
export class LivenessView {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

@ApiSchema({ description: 'Whether a dependency took a write just now.' })
export class WriteProbeView implements WriteProbeResult, RedisWriteResult {
  @ApiProperty({ enum: PROBE_STATUSES })
  status: WriteProbeStatus | RedisWriteStatus;

  @ApiPropertyOptional({ description: "The dependency's refusal or the client's error." })
  error?: string;
}

const DIGEST_STATUSES = ['ok', 'paused', 'behind', 'unknown'] as const;

@ApiSchema({ description: 'Whether the digest keeps up with what ingest accepts.' })
export class DigestCheck {
  @ApiProperty({
    enum: DIGEST_STATUSES,
    description:
      '`paused`: a worker waits for a database that refuses work; `behind`: the oldest job is past the threshold; `unknown`: Redis does not answer.',
  })
  status: (typeof DIGEST_STATUSES)[number];

  @ApiProperty({ type: Number, nullable: true })
  oldest_waiting_seconds: number | null;

  @ApiProperty()
  threshold_seconds: number;

  @ApiPropertyOptional()
  paused_reason?: string;
}

export class ReadinessChecks {
  @ApiProperty({ type: () => WriteProbeView })
  database_writes: WriteProbeView;

  @ApiProperty({ type: () => WriteProbeView })
  redis_writes: WriteProbeView;

  @ApiProperty({ type: () => DigestCheck })
  digest: DigestCheck;
}

export class DigestPause {
  @ApiProperty({ format: 'date-time' })
  since: string;

  @ApiProperty()
  reason: string;
}

@ApiSchema({ description: 'A worker process that reported in the last 30 s.' })
export class WorkerBeatView implements WorkerBeat {
  @ApiProperty()
  id: string;

  @ApiProperty({ format: 'date-time', description: 'When the process last reported.' })
  seen_at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it last took a digest job; null when it has not taken one since it started.',
  })
  last_job_at: string | null;

  @ApiPropertyOptional({
    type: () => DigestPause,
    description: 'Present while its digest waits for a database that refuses work.',
  })
  digest_paused?: DigestPause;
}

@ApiSchema({
  description:
    'Ready: PostgreSQL and Redis answer. `degraded` (still 200) when one refuses work or the digest falls behind.',
})
export class ReadinessView {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status: 'ok' | 'degraded';

  @ApiProperty({ enum: DEPENDENCY_STATES })
  database: DependencyState;

  @ApiProperty({ enum: DEPENDENCY_STATES })
  redis: DependencyState;

  @ApiPropertyOptional({ type: [String], description: 'What is wrong, in words, when `degraded`.' })
  degraded?: string[];

  @ApiProperty({ type: () => ReadinessChecks })
  checks: ReadinessChecks;

  @ApiPropertyOptional({
    description:
      'Digest jobs not yet processed (waiting, active, delayed); the queue fields are absent when Redis does not answer.',
  })
  digest_backlog?: number;

  @ApiPropertyOptional({ description: 'Digest jobs whose payload could never be stored (`jobs:failed`).' })
  digest_failed?: number;

  @ApiPropertyOptional({ description: 'Alert jobs that failed for good.' })
  alerts_failed?: number;

  @ApiPropertyOptional({ type: () => [WorkerBeatView] })
  workers?: WorkerBeatView[];

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  digest_last_job_at?: string | null;
}

@ApiSchema({ description: 'Not ready: PostgreSQL or Redis cannot be reached. The readiness, and the error.' })
export class NotReadyView extends OmitType(ReadinessView, ['status'] as const) {
  @ApiProperty({ example: 'not ready: database unreachable' })
  error: string;

  @ApiProperty({ enum: ['error'] })
  status: 'error';
}

@ApiSchema({ description: "A check's status, without its details." })
export class CheckStatusView {
  @ApiProperty({ enum: [...PROBE_STATUSES, ...DIGEST_STATUSES.filter((status) => status !== 'ok')] })
  status: WriteProbeStatus | RedisWriteStatus | DigestCheck['status'];
}

export class PublicReadinessChecks {
  @ApiProperty({ type: () => CheckStatusView })
  database_writes: CheckStatusView;

  @ApiProperty({ type: () => CheckStatusView })
  redis_writes: CheckStatusView;

  @ApiProperty({ type: () => CheckStatusView })
  digest: CheckStatusView;
}

@ApiSchema({
  description:
    "Readiness as anyone sees it: the statuses only, nothing that names a host, a process or an address (the details are at /health/ready/details). With HEALTH_DETAILS=public, the details' answer instead.",
})
export class PublicReadinessView {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status: 'ok' | 'degraded';

  @ApiProperty({ enum: DEPENDENCY_STATES })
  database: DependencyState;

  @ApiProperty({ enum: DEPENDENCY_STATES })
  redis: DependencyState;

  @ApiProperty({ type: () => PublicReadinessChecks })
  checks: PublicReadinessChecks;
}

@ApiSchema({ description: 'Not ready, as anyone sees it: the statuses and the error.' })
export class PublicNotReadyView extends OmitType(PublicReadinessView, ['status'] as const) {
  @ApiProperty({ example: 'not ready: database unreachable' })
  error: string;

  @ApiProperty({ enum: ['error'] })
  status: 'error';
}
