import { ApiProperty, ApiSchema } from '@nestjs/swagger';

const ASSEMBLE_STATES = ['not_found', 'created', 'assembling', 'ok', 'error'] as const;
export type AssembleState = (typeof ASSEMBLE_STATES)[number];

@ApiSchema({
  description:
    'Where an artifact bundle upload stands: chunks still to send (`not_found`), stored (`ok`), or refused (`error`, with `detail`).',
})
export class AssembleAnswer {
  @ApiProperty({ enum: ASSEMBLE_STATES })
  state: AssembleState;

  @ApiProperty({ type: [String], description: 'SHA-1s of the chunks to upload first.' })
  missingChunks: string[];

  @ApiProperty({ type: String, nullable: true })
  detail: string | null;
}

@ApiSchema({ description: 'How sentry-cli is to upload chunks (sentry-cli asks before uploading).' })
export class ChunkUploadOptions {
  @ApiProperty({ example: '/api/0/organizations/default/chunk-upload/' })
  url: string;

  @ApiProperty({ description: 'Bytes.' })
  chunkSize: number;

  @ApiProperty()
  chunksPerRequest: number;

  @ApiProperty({ description: 'Bytes.' })
  maxRequestSize: number;

  @ApiProperty({ description: 'Bytes of a bundle.' })
  maxFileSize: number;

  @ApiProperty()
  concurrency: number;

  @ApiProperty({ description: 'Seconds `--wait` waits at most.' })
  maxWait: number;

  @ApiProperty({ enum: ['sha1'] })
  hashAlgorithm: 'sha1';

  @ApiProperty({ type: [String], example: ['gzip'] })
  compression: string[];

  @ApiProperty({ type: [String], description: 'What this server takes.' })
  accept: string[];
}
