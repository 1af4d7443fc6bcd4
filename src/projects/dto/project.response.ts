import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: 'A project, with the DSN its SDKs send events to.' })
export class ProjectView {
  @ApiProperty()
  id: number;

  @ApiProperty({ example: 'Web shop' })
  name: string;

  @ApiProperty({ example: 'web-shop' })
  slug: string;

  @ApiProperty({ description: 'The public key of the DSN.' })
  client_key: string;

  @ApiProperty({ example: 'https://0123456789abcdef0123456789abcdef@errors.example.com/1' })
  dsn: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The DSN of the key the last rotation replaced, while ingest still accepts it (until `previous_client_key_expires_at`); null otherwise.',
  })
  previous_dsn: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  previous_client_key_expires_at: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Days its events are kept; null follows EVENT_RETENTION_DAYS.',
  })
  retention_days: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

@ApiSchema({ description: 'A project as the project list shows it: with how much is going on in it.' })
export class ProjectSummaryView extends ProjectView {
  @ApiProperty({
    description: 'Unresolved issues (state open, not merged into another): the default issue list.',
  })
  open_issues: number;

  @ApiProperty({
    description:
      'Events of the last 24 hours (this hour and the 23 before it, as the 24h stats), from the hourly rollups: events received in the last few seconds may not be counted yet.',
  })
  events_24h: number;
}
