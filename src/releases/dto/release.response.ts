import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ReleaseHealthFigures } from './release-health.response';

@ApiSchema({
  description:
    'A release of a project, with its events, the issues it opened, and its health over the period asked for (`sessions` … `adoption`).',
})
export class ReleaseView extends ReleaseHealthFigures {
  @ApiProperty({ example: 'shop@1.2.0' })
  version: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  first_event: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_event: string | null;

  @ApiProperty({ description: 'Its events, in the environment asked for (every environment without).' })
  event_count: number;

  @ApiProperty({
    description: 'Issues first seen in it, in the environment asked for (that of the issue’s first event).',
  })
  new_issues: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it was finalized (`sentry-cli releases finalize`), or null.',
  })
  date_released: string | null;
}

@ApiSchema({ description: 'A deploy of a release to an environment.' })
export class DeployView {
  @ApiProperty({ example: 'production' })
  environment: string;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ type: String, nullable: true })
  url: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  date_started: string | null;

  @ApiProperty({ format: 'date-time' })
  date_finished: string;
}

@ApiSchema({ description: 'One release with its latest deploys.' })
export class ReleaseDetailView extends ReleaseView {
  @ApiProperty({ type: () => [DeployView], description: 'The 10 that finished last, newest first.' })
  deploys: DeployView[];
}
