import { ApiProperty } from '@nestjs/swagger';

/** What erasing a person's data removed and changed. */
export class ErasureReport {
  @ApiProperty({
    description:
      'The person, as matched: `id:…`, `email:…`, `username:…`, `ip:…`, or a bare value matched against all four.',
  })
  identifier: string;

  @ApiProperty({ description: 'Events deleted, across all of the project’s partitions.' })
  events_deleted: number;

  @ApiProperty({ description: 'Issues that had events deleted (counts, user counts and rollups corrected).' })
  issues_updated: number;

  @ApiProperty({ description: 'Issues deleted because none of their events was left.' })
  issues_deleted: number;

  @ApiProperty({ description: 'Feedback about the deleted events, or sent from the e-mail address.' })
  feedback_deleted: number;

  @ApiProperty({ description: 'Files attached to the deleted events (their blobs are deleted too).' })
  attachments_deleted: number;

  @ApiProperty({ description: 'Hourly, project hourly and tag rollup rows lowered or deleted.' })
  rollup_rows_changed: number;
}
