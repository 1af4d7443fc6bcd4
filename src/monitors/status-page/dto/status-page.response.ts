import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: "A project's status page settings (off by default)." })
export class StatusPageSettingsView {
  @ApiProperty()
  enabled: boolean;

  @ApiProperty({ type: String, nullable: true })
  slug: string | null;

  @ApiProperty()
  title: string;

  @ApiProperty({ type: [Number] })
  uptime_monitor_ids: number[];

  @ApiProperty({ type: [Number] })
  cron_monitor_ids: number[];
}

export class StatusDayView {
  @ApiProperty({ example: '2026-11-26', description: 'a UTC day' })
  date: string;

  @ApiProperty({ type: Number, nullable: true, description: 'null when nothing was checked that day' })
  uptime_percent: number | null;
}

export class StatusMonitorView {
  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['uptime', 'cron'] })
  kind: 'uptime' | 'cron';

  @ApiProperty({ enum: ['up', 'down', 'pending'] })
  status: 'up' | 'down' | 'pending';

  @ApiProperty({ type: [StatusDayView], description: '90 UTC days, oldest first, today last' })
  days: StatusDayView[];
}

@ApiSchema({ description: 'A public status page: the chosen monitors, their state and 90 days of history.' })
export class PublicStatusPageView {
  @ApiProperty()
  title: string;

  @ApiProperty({ type: [StatusMonitorView] })
  monitors: StatusMonitorView[];

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at: string;
}
