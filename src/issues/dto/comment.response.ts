import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: "A comment's author." })
export class CommentAuthor {
  @ApiProperty()
  id: number;

  @ApiProperty()
  email: string;

  @ApiProperty()
  name: string;
}

@ApiSchema({ description: 'A comment on an issue, in Markdown.' })
export class CommentView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  issue_id: number;

  @ApiProperty({
    type: () => CommentAuthor,
    nullable: true,
    description: "Null for an operator token's comment (`author_label` says which).",
  })
  author: CommentAuthor | null;

  @ApiProperty({ description: 'How the author is named.' })
  author_label: string;

  @ApiProperty({ description: 'As written (Markdown).' })
  body: string;

  @ApiProperty({ description: 'Rendered and sanitized: safe to insert in a page as is.' })
  html: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
