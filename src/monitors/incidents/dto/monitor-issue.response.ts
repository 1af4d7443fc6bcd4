import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ISSUE_STATES, IssueState } from '../../../issues/issue.entity';

@ApiSchema({
  description: "A monitor's issue, as its pages name it: open, or its last incident once resolved.",
})
export class MonitorIssueView {
  @ApiProperty()
  id: number;

  @ApiProperty({ example: 'WEB-SHOP-10', description: 'As the issue pages say it.' })
  short_id: string;

  @ApiProperty({ enum: ISSUE_STATES })
  state: IssueState;
}
