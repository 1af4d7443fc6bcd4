import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FILTER_REASONS } from '../filters/inbound-filters';
import { LEGACY_BROWSERS } from '../filters/user-agents';

@ApiSchema({ description: 'How many events one filter dropped (the `filtered` outcomes of its reason).' })
export class FilteredCount {
  @ApiProperty({ enum: FILTER_REASONS })
  reason: string;

  @ApiProperty({ description: 'In the last 24 hours (counts reach the database within about a minute).' })
  last_24h: number;

  @ApiProperty({ description: 'In the last 30 days.' })
  last_30d: number;
}

@ApiSchema({
  description: "A project's inbound filters: events ingest answers 200 to and drops before queueing.",
})
export class InboundFiltersView {
  @ApiProperty()
  project_id: number;

  @ApiProperty()
  browser_extensions: boolean;

  @ApiProperty()
  localhost: boolean;

  @ApiProperty()
  web_crawlers: boolean;

  @ApiProperty({ type: [String], enum: LEGACY_BROWSERS })
  legacy_browsers: string[];

  @ApiProperty({ type: [String] })
  releases: string[];

  @ApiProperty({ type: [String] })
  error_messages: string[];

  @ApiProperty({ type: [String] })
  client_ips: string[];

  @ApiProperty({ type: String, nullable: true, description: 'When they were last changed; null: never.' })
  updated_at: string | null;

  @ApiProperty({
    type: [String],
    enum: LEGACY_BROWSERS,
    description: 'The legacy-browser choices, for reference.',
  })
  legacy_browser_choices: string[];

  @ApiProperty({ type: [FilteredCount], description: 'One entry per filter, in the order filters run.' })
  filtered: FilteredCount[];
}
