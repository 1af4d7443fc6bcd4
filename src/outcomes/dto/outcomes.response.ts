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

  @ApiProperty({ description: 'Errors stored (from the hourly event counts).' })
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

@ApiSchema({
  description:
    'Accepted errors and dropped data of a project: totals by outcome, category and reason, and a zero-filled series (hourly for 24h, per UTC day for 14d and 90d).',
})
export class OutcomesView {
  @ApiProperty({ enum: STATS_PERIODS })
  period: StatsPeriod;

  @ApiProperty({ enum: ['1h', '1d'] })
  interval: '1h' | '1d';

  @ApiProperty({ description: 'Errors accepted and stored over the period.' })
  accepted: number;

  @ApiProperty({ description: 'Everything else over the period: refused, discarded by SDKs, unsupported.' })
  dropped: number;

  @ApiProperty({ type: () => [OutcomeTotal], description: 'The largest first.' })
  totals: OutcomeTotal[];

  @ApiProperty({ type: () => [OutcomeBucket], description: 'Oldest first.' })
  series: OutcomeBucket[];
}
