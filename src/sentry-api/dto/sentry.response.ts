import { ApiProperty, ApiSchema } from '@nestjs/swagger';

export class SentryReleaseProject {
  @ApiProperty()
  id: number;

  @ApiProperty()
  slug: string;

  @ApiProperty()
  name: string;
}

@ApiSchema({ description: "A release as Sentry's API shows it, with the fields sentry-cli reads." })
export class SentryRelease {
  @ApiProperty({ example: 'shop@1.2.0' })
  version: string;

  @ApiProperty()
  shortVersion: string;

  @ApiProperty({ format: 'date-time' })
  dateCreated: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  dateReleased: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  firstEvent: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastEvent: string | null;

  @ApiProperty({ description: 'Issues first seen in it.' })
  newGroups: number;

  @ApiProperty({ type: String, nullable: true, description: 'Always null here.' })
  url: null;

  @ApiProperty({ type: () => [SentryReleaseProject] })
  projects: SentryReleaseProject[];
}

@ApiSchema({ description: "A deploy as Sentry's API shows it." })
export class SentryDeploy {
  @ApiProperty()
  id: string;

  @ApiProperty()
  environment: string;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ type: String, nullable: true })
  url: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  dateStarted: string | null;

  @ApiProperty({ format: 'date-time' })
  dateFinished: string;
}

export class SentryAuth {
  @ApiProperty({ type: [String], example: ['org:read', 'project:read', 'project:write', 'project:releases'] })
  scopes: string[];
}

@ApiSchema({ description: '`sentry-cli info`: who the token is (nobody in particular) and what it may do.' })
export class SentryAuthInfo {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Always null here.',
  })
  user: null;

  @ApiProperty({ type: () => SentryAuth })
  auth: SentryAuth;
}
