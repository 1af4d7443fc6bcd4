import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { DEFAULT_PAGE_SIZE, Page } from '../common/pagination';
import { AuditLog } from './audit-log.service';
import { AuditEntryView } from './dto/audit-entry.response';
import { ApiErrors, PageOf } from '../http/api-responses';
import { ListAuditLogQuery } from './dto/list-audit-log.query';

@ApiTags('audit log')
@ApiBearerAuth()
@Controller('api/audit-log')
export class AuditLogController {
  constructor(private readonly log: AuditLog) {}

  /** Newest first; filtered by action (or family), account, target and time. */
  @Get()
  @Requires('audit:read')
  @ApiOkResponse({ type: PageOf(AuditEntryView) })
  @ApiErrors(400)
  list(@Query() query: ListAuditLogQuery): Promise<Page<AuditEntryView>> {
    return this.log.page({
      action: query.action,
      actorUserId: query.actor_id,
      targetType: query.target_type,
      targetId: query.target_id,
      since: query.since,
      until: query.until,
      cursor: query.cursor,
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
  }
}
