import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { STATS_PERIODS, StatsPeriod } from '../../rollups/stats-period';
import { Outcome, OUTCOMES } from '../envelope-outcomes';

@ApiSchema({ description: 'What became of a kind of data over the period, and why.' })
export class OutcomeTotal {
  @ApiProperty({ enum: OUTCOMES })
  outcome: Outcome;

  @ApiProperty({ example: 'error', description: 'Data category: error, transaction, session, replay, …' })
  category: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'before_send',
    description:
      'Why it was dropped (an SDK’s discard reason, `rate_limit`, `too_large`, the unsupported item type …); null for accepted.',
  })
  reason: string | null;

  @ApiProperty()
  quantity: number;
}

@ApiSchema({ description: 'Quantities of one bucket by outcome.' })
export class OutcomeBucket {
  @ApiProperty({ format: 'date-time' })
  start: string;

  @ApiProperty({ description: 'Errors accepted, by hour of receipt (an erasure since changes nothing).' })
  accepted: number;

  @ApiProperty()
  filtered: number;

  @ApiProperty()
  rate_limited: number;

  @ApiProperty()
  invalid: number;

  @ApiProperty()
  client_discard: number;

  @ApiProperty()
  unsupported: number;
}

@ApiSchema({ description: 'One bucket of a data category: what was accepted and what was dropped.' })
export class CategoryBucket {
  @ApiProperty({ format: 'date-time' })
  start: string;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Null for a category whose acceptance is not counted.',
  })
  accepted: number | null;

  @ApiProperty()
  dropped: number;
}

@ApiSchema({
  description:
    'What became of one data category over the period. Only errors have an accepted count; the rest is what was dropped, for any reason.',
})
export class CategoryUsage {
  @ApiProperty({ example: 'error' })
  category: string;

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Accepted and stored (errors); null for a category this server does not count acceptance of.',
  })
  accepted: number | null;

  @ApiProperty()
  dropped: number;

  @ApiProperty({ type: () => [CategoryBucket], description: 'Oldest first, the same buckets as `series`.' })
  series: CategoryBucket[];
}

@ApiSchema({
  description:
    'Accepted errors and dropped data of a project: totals by outcome, category and reason, and a zero-filled series (hourly for 24h, per UTC day for 14d and 90d).',
})
export class OutcomesView {
  @ApiProperty({ enum: STATS_PERIODS })
  period: StatsPeriod;

  @ApiProperty({ enum: ['1h', '1d'] })
  interval: '1h' | '1d';

  @ApiProperty({
    description:
      'Errors accepted over the period, by hour of receipt: what ingest accepted, which an erasure since does not change.',
  })
  accepted: number;

  @ApiProperty({
    description:
      'Everything else over the period, of every category together: refused, discarded by SDKs, unsupported. `categories` gives each apart.',
  })
  dropped: number;

  @ApiProperty({ type: () => [OutcomeTotal], description: 'The largest first.' })
  totals: OutcomeTotal[];

  @ApiProperty({ type: () => [OutcomeBucket], description: 'Oldest first.' })
  series: OutcomeBucket[];

  @ApiProperty({
    type: () => [CategoryUsage],
    description: 'Each data category on its own: errors first, then the others by quantity dropped.',
  })
  categories: CategoryUsage[];
}
