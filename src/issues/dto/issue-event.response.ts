import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EventListItem } from '../../events/dto/event.response';

@ApiSchema({ description: "An event in its issue's list, with how many files came with it." })
export class IssueEventListItem extends EventListItem {
  @ApiProperty({ description: 'Files stored with the event (see its attachments).' })
  attachment_count: number;
}
