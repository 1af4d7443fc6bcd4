import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';

export const MAX_COMMENT_LENGTH = 10_000;

export class CommentBodyDto {
  @ApiProperty({ description: 'Markdown', maxLength: MAX_COMMENT_LENGTH })
  @IsString({ message: 'body must be a string' })
  @Length(1, MAX_COMMENT_LENGTH, { message: `body must be 1 to ${MAX_COMMENT_LENGTH} characters` })
  @Matches(/\S/, { message: 'body must not be blank' })
  body: string;
}

export class ListCommentsQuery extends PageQueryDto {}
