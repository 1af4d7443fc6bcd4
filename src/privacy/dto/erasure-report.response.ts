import { ApiProperty } from '@nestjs/swagger';

/** What went, kind by kind: everything stored of the person, in PostgreSQL, the blob store and Redis. */
export class ErasedByKind {
  @ApiProperty({ description: 'Events deleted (the same as `events_deleted`).' })
  events: number;

  @ApiProperty({ description: 'Files attached to the deleted events, with their blobs.' })
  event_attachments: number;

  @ApiProperty({ description: 'Feedback deleted (the same as `feedback_deleted`).' })
  feedback: number;

  @ApiProperty({ description: 'Files sent with the deleted feedback (the widget’s screenshots), with their blobs.' })
  feedback_attachments: number;

  @ApiProperty({
    description: 'Release health rows of the person’s distinct id (per hour, environment and release) deleted.',
  })
  release_health_users: number;

  @ApiProperty({ description: 'The person’s entries among the session counts not yet folded (Redis).' })
  session_user_entries: number;

  @ApiProperty({ description: 'States of the person’s sessions deleted (Redis).' })
  session_states: number;

  @ApiProperty({
    description: 'Jobs of the digest queue’s failed set deleted, or left without the person’s events.',
  })
  failed_jobs: number;
}

/** What erasing a person's data removed and changed. */
export class ErasureReport {
  @ApiProperty({
    description:
      'The person, as matched: `id:…`, `email:…`, `username:…`, `ip:…`, or a bare value matched against all four.',
  })
  identifier: string;

  @ApiProperty({ description: 'Events deleted, across all of the project’s partitions.' })
  events_deleted: number;

  @ApiProperty({
    description:
      'Issues that had events deleted and keep others (counts, user counts and rollups corrected); not those deleted.',
  })
  issues_updated: number;

  @ApiProperty({ description: 'Issues deleted because none of their events was left.' })
  issues_deleted: number;

  @ApiProperty({ description: 'Feedback about the deleted events, or sent from the e-mail address.' })
  feedback_deleted: number;

  @ApiProperty({ description: 'Files attached to the deleted events (their blobs are deleted too).' })
  attachments_deleted: number;

  @ApiProperty({ description: 'Hourly, project hourly and tag rollup rows lowered or deleted.' })
  rollup_rows_changed: number;

  @ApiProperty({ type: ErasedByKind, description: 'What was erased, kind by kind.' })
  erased: ErasedByKind;
}

/** What erasing a person's data would remove, counted by the erasure's own statements, rolled back. */
export class ErasurePreview {
  @ApiProperty({ description: 'The person, as matched (see `ErasureReport.identifier`).' })
  identifier: string;

  @ApiProperty({ description: 'Issues that would keep some of their events, their counts corrected.' })
  issues_updated: number;

  @ApiProperty({ description: 'Issues that would be deleted because none of their events would be left.' })
  issues_deleted: number;

  @ApiProperty({ type: ErasedByKind, description: 'What would be erased, kind by kind: what the erasure reports.' })
  erased: ErasedByKind;
}
