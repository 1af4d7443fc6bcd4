import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: 'A file of an artifact bundle: a minified script or its source map.' })
export class ArtifactFileView {
  @ApiProperty({ description: 'Its path in the bundle.' })
  path: string;

  @ApiProperty({ description: 'The URL it is served at, as uploaded (`~/` for any host).' })
  url: string;

  @ApiProperty({ description: 'Its kind, as sentry-cli named it (a script, a source map).' })
  type: string;

  @ApiProperty({ type: String, nullable: true })
  debug_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The source map a script refers to.' })
  source_map: string | null;

  @ApiProperty({ description: 'Bytes, inflated.' })
  size: number;
}

@ApiSchema({ description: 'An artifact bundle sentry-cli uploaded, with its files.' })
export class ArtifactBundleView {
  @ApiProperty()
  id: number;

  @ApiProperty({ description: 'SHA-1 of the bundle.' })
  checksum: string;

  @ApiProperty({ type: String, nullable: true })
  bundle_debug_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  release: string | null;

  @ApiProperty({ type: String, nullable: true })
  dist: string | null;

  @ApiProperty()
  file_count: number;

  @ApiProperty({ description: 'Bytes of its files, inflated.' })
  size: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at: string | null;

  @ApiProperty({ type: () => [ArtifactFileView] })
  files: ArtifactFileView[];
}
