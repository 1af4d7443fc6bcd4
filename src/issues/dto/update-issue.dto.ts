import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ISSUE_STATES, IssueState } from '../issue.entity';

export class UpdateIssueDto {
  @ApiProperty({ enum: ISSUE_STATES })
  @IsIn(ISSUE_STATES, { message: `state must be one of ${ISSUE_STATES.join(', ')}` })
  state: IssueState;
}
