import { ApiProperty, ApiSchema } from '@nestjs/swagger';

export const HEALTH_PERIODS = ['24h', '14d', '90d'] as const;
export type HealthPeriod = (typeof HEALTH_PERIODS)[number];

@ApiSchema({
  description: "A release's percent share of the project's sessions and users over the last 24 hours.",
})
export class HealthAdoption {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Percent (0–100) of the sessions; null when the project had none.',
  })
  sessions: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Percent (0–100) of the distinct users; null when the project had none.',
  })
  users: number | null;
}

@ApiSchema({
  description:
    'Release health over a period: sessions counted by the hour they started in, distinct users by their hashed `did`. Crash-free rates are percentages (0–100, not rounded), null without sessions (users).',
})
export class ReleaseHealthFigures {
  @ApiProperty()
  sessions: number;

  @ApiProperty({ description: 'Distinct users (sessions with a `did`).' })
  users: number;

  @ApiProperty({
    description:
      'Sessions that met an error but neither crashed nor ended abnormally (`unhandled` included).',
  })
  errored_sessions: number;

  @ApiProperty()
  crashed_sessions: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Percent of sessions that did not crash.' })
  crash_free_sessions: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Percent of users none of whose sessions crashed.',
  })
  crash_free_users: number | null;

  @ApiProperty({ type: () => HealthAdoption })
  adoption: HealthAdoption;
}

@ApiSchema({ description: 'One bucket of a release health series.' })
export class HealthBucket {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket.' })
  time: string;

  @ApiProperty()
  sessions: number;

  @ApiProperty()
  users: number;

  @ApiProperty()
  errored_sessions: number;

  @ApiProperty()
  crashed_sessions: number;

  @ApiProperty()
  abnormal_sessions: number;

  @ApiProperty({ type: Number, nullable: true })
  crash_free_sessions: number | null;

  @ApiProperty({ type: Number, nullable: true })
  crash_free_users: number | null;
}

@ApiSchema({
  description: "A release's health over a period, with every bucket of the period (zeros included).",
})
export class ReleaseHealthView {
  @ApiProperty()
  version: string;

  @ApiProperty({ enum: HEALTH_PERIODS })
  period: HealthPeriod;

  @ApiProperty({ type: String, nullable: true, description: 'The environment asked for; null: all of them.' })
  environment: string | null;

  @ApiProperty({ enum: ['hour', 'day'] })
  interval: 'hour' | 'day';

  @ApiProperty({ type: () => ReleaseHealthFigures })
  totals: ReleaseHealthFigures;

  @ApiProperty({ type: () => [HealthBucket] })
  series: HealthBucket[];
}

@ApiSchema({ description: "One release's figures in a project's health overview." })
export class ReleaseHealthEntry extends ReleaseHealthFigures {
  @ApiProperty()
  version: string;

  @ApiProperty({
    type: [Number],
    description: 'Sessions per bucket of the period (hourly for 24h, daily otherwise).',
  })
  sparkline: number[];
}

@ApiSchema({
  description: "A project's release health: its totals and every release that had sessions in the period.",
})
export class ProjectHealthView {
  @ApiProperty({ enum: HEALTH_PERIODS })
  period: HealthPeriod;

  @ApiProperty({ type: String, nullable: true })
  environment: string | null;

  @ApiProperty({ type: [String], description: "The environments the project's sessions named." })
  environments: string[];

  @ApiProperty({ type: () => ReleaseHealthFigures, description: 'All releases together (adoption is null).' })
  totals: ReleaseHealthFigures;

  @ApiProperty({ type: () => [ReleaseHealthEntry], description: 'Most sessions first.' })
  releases: ReleaseHealthEntry[];
}
