import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { ISSUE_STATES, IssueState } from '../issue.entity';

export class ListIssuesQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: ISSUE_STATES })
  @IsOptional()
  @IsIn(ISSUE_STATES, { message: `state must be one of ${ISSUE_STATES.join(', ')}` })
  state?: IssueState;
}
