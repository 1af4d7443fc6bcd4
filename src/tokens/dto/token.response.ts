import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({
  description:
    'An API token. `token` is in full only in the answer that creates it; lists show its first characters.',
})
export class TokenView {
  @ApiProperty()
  id: number;

  @ApiProperty({
    description: 'In full when just created; otherwise its first 8 characters, then `...****`.',
  })
  token: string;

  @ApiProperty()
  description: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The account it acts for (never beyond that account's role); null: an operator token.",
  })
  user_id: number | null;

  @ApiProperty({ description: 'Only GET and HEAD requests.' })
  read_only: boolean;

  @ApiProperty({
    type: [Number],
    nullable: true,
    description: 'The projects it is limited to; null: every project its account sees.',
  })
  project_ids: number[] | null;
}
