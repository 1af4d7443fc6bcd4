import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({
  description: 'A file an SDK attached to an event (`scope.addAttachment`, a screenshot, a minidump …).',
})
export class AttachmentView {
  @ApiProperty({ description: 'Its id within the event, for the download route.', example: '42' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  event_id: string;

  @ApiProperty({ example: 'log.txt', description: 'The file name the SDK gave, without any path.' })
  name: string;

  @ApiProperty({
    example: 'text/plain',
    description: 'The media type the SDK gave (`application/octet-stream` if none or invalid).',
  })
  content_type: string;

  @ApiProperty({
    example: 'event.attachment',
    description:
      "Sentry's attachment type: `event.attachment`, `event.minidump`, `event.applecrashreport`, `event.view_hierarchy`, `unreal.context`, `unreal.logs` …",
  })
  attachment_type: string;

  @ApiProperty({ description: 'Bytes.' })
  size: number;

  @ApiProperty({ description: 'SHA-256 of the bytes, in hex.' })
  sha256: string;

  @ApiProperty({ format: 'date-time' })
  received_at: string;

  @ApiProperty({ description: 'Where to download it (the API path, with the same credentials).' })
  download_url: string;
}

@ApiSchema({ description: "The files stored with an issue's events." })
export class IssueAttachmentsView {
  @ApiProperty({ description: 'Files, over all its events.' })
  files: number;

  @ApiProperty({ description: 'Events that have at least one file.' })
  events: number;

  @ApiProperty({ description: 'Their bytes together.' })
  bytes: number;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The newest event with a file (null when none has any).',
  })
  latest_event_id: string | null;
}
