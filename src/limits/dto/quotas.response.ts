import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({
  description:
    'One time spike protection engaged: from the first dropped event until a whole hour without one.',
})
export class SpikeView {
  @ApiProperty()
  id: number;

  @ApiProperty({ description: 'The first dropped event.' })
  started_at: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The end of the last hour with drops; null: still engaged.',
  })
  ended_at: string | null;

  @ApiProperty({ description: 'Events per UTC hour that were accepted (the latest hour).' })
  limit_per_hour: number;

  @ApiProperty({ description: 'Events dropped by spike protection during the spike.' })
  dropped: number;
}

@ApiSchema({ description: 'Counts of accepted events and session items from the Redis counters ingest keeps.' })
export class QuotaUsageView {
  @ApiProperty({ description: 'Accepted in the current UTC day.' })
  today: number;

  @ApiProperty({ description: 'Accepted in the current UTC month.' })
  this_month: number;

  @ApiProperty({ description: 'Accepted in the current UTC hour.' })
  this_hour: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Events per UTC hour before spike protection engages, as ingest applies it; null: off.',
  })
  spike_limit: number | null;

  @ApiProperty({ description: 'Dropped by spike protection in the current UTC hour.' })
  spike_dropped_this_hour: number;

  @ApiProperty({ description: 'Session items accepted in the current UTC day.' })
  sessions_today: number;
}

@ApiSchema({
  description: "A project's event quotas, session quota and spike protection, with its current usage.",
})
export class QuotasView {
  @ApiProperty()
  project_id: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Events per UTC day; null: none.' })
  daily_quota: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Events per UTC month; null: none.' })
  monthly_quota: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Session items per UTC day; null: none.' })
  daily_session_quota: number | null;

  @ApiProperty({ description: 'Spike protection is on (the default).' })
  spike_protection: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When they were last changed; null: the defaults.',
  })
  updated_at: string | null;

  @ApiProperty({ type: QuotaUsageView, nullable: true, description: 'null when Redis did not answer.' })
  usage: QuotaUsageView | null;

  @ApiProperty({ type: SpikeView, nullable: true, description: 'The spike under way, if any.' })
  current_spike: SpikeView | null;

  @ApiProperty({ type: [SpikeView], description: 'The last spikes, newest first (at most 10).' })
  recent_spikes: SpikeView[];
}

@ApiSchema({
  description:
    "Whether ingest refuses the project's events now for a quota or spike protection, since when and until when.",
})
export class QuotaRefusalView {
  @ApiProperty({ description: "The project's events are refused (429) now." })
  refusing: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['daily_quota', 'monthly_quota', 'spike_protection'],
    description: 'What refuses them; null: nothing.',
  })
  reason: 'daily_quota' | 'monthly_quota' | 'spike_protection' | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The first event refused in this period; null when not refusing or not recorded.',
  })
  since: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When events are accepted again: the end of the UTC day, month or hour.',
  })
  until: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'The quota, or the spike limit per hour.' })
  limit: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Spike protection: events dropped this hour.' })
  dropped: number | null;
}
