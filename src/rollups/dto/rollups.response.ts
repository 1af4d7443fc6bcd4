import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { STATS_PERIODS, StatsPeriod } from '../stats-period';

export class StatsBucket {
  @ApiProperty({ format: 'date-time' })
  start: string;

  @ApiProperty()
  count: number;
}

@ApiSchema({
  description: 'Events per bucket, oldest first, zero-filled: hourly for 24h, per UTC day for 14d and 90d.',
})
export class StatsView {
  @ApiProperty({ enum: STATS_PERIODS })
  period: StatsPeriod;

  @ApiProperty({ enum: ['1h', '1d'] })
  interval: '1h' | '1d';

  @ApiProperty({ type: () => [StatsBucket] })
  buckets: StatsBucket[];
}

@ApiSchema({ description: "An environment as the project's hourly counts know it (times to the hour)." })
export class EnvironmentRow {
  @ApiProperty({ example: 'production' })
  name: string;

  @ApiProperty()
  event_count: number;

  @ApiProperty({ format: 'date-time' })
  first_seen: string;

  @ApiProperty({ format: 'date-time' })
  last_seen: string;
}

@ApiSchema({ description: 'A value of a tag, with the events that carry it.' })
export class TagValueRow {
  @ApiProperty()
  value: string;

  @ApiProperty()
  count: number;
}

@ApiSchema({
  description: "One tag key of an issue's events: events with it, distinct values, the most frequent.",
})
export class TagKeySummary {
  @ApiProperty({ example: 'browser' })
  key: string;

  @ApiProperty({ description: 'Events carrying the tag.' })
  total: number;

  @ApiProperty({ description: 'Distinct values.' })
  distinct: number;

  @ApiProperty({ type: () => [TagValueRow], description: 'The 10 most frequent values.' })
  top: TagValueRow[];
}

@ApiSchema({ description: "A tag key over a project's recent issues, with their events carrying it." })
export class ProjectTagKey {
  @ApiProperty()
  key: string;

  @ApiProperty()
  total: number;
}
