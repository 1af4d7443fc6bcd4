import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({
  description: "A project's data protection settings. Changes apply to events digested after them.",
})
export class PrivacySettingsView {
  @ApiProperty()
  project_id: number;

  @ApiProperty({ description: 'Secrets are replaced by [Filtered] before events are stored.' })
  scrub_data: boolean;

  @ApiProperty({ description: "The user's IP address and IP addresses inside values are removed too." })
  scrub_ip_addresses: boolean;

  @ApiProperty({ type: [String] })
  sensitive_fields: string[];

  @ApiProperty({ type: [String] })
  safe_fields: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When they were last changed; null: the defaults.',
  })
  updated_at: string | null;

  @ApiProperty({ type: [String], description: 'Key parts scrubbed by default, for reference.' })
  default_sensitive_fields: string[];
}
