import { Controller, Get, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { EventIdPipe, IdPipe } from '../common/id.pipes';
import { ApiErrors, ListOf } from '../http/api-responses';
import { Requires } from '../access/route-access.decorator';
import { contentDisposition, DOWNLOAD_CONTENT_SECURITY_POLICY } from './attachment-headers';
import { AttachmentsService } from './attachments.service';
import { AttachmentView } from './dto/attachment.response';

const AttachmentList = ListOf(AttachmentView);

@ApiTags('attachments')
@ApiBearerAuth()
@Controller('api/projects/:projectId/events/:eventId/attachments')
export class AttachmentsController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: AttachmentList, description: "The event's files, oldest first." })
  @ApiErrors(400)
  async list(
    @Param('projectId', new IdPipe('projectId')) projectId: number,
    @Param('eventId', EventIdPipe) eventId: string,
  ): Promise<{ data: AttachmentView[] }> {
    return { data: await this.attachments.list(projectId, eventId) };
  }

  /** Always a download: the file's own type, but never rendered or sniffed (see DOWNLOAD_CONTENT_SECURITY_POLICY). */
  @Get(':attachmentId')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({
    description:
      'The bytes, with the Content-Type the SDK gave (any type: shown here as octet-stream) and `Content-Disposition: attachment`.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors(400, 404)
  async download(
    @Param('projectId', new IdPipe('projectId')) projectId: number,
    @Param('eventId', EventIdPipe) eventId: string,
    @Param('attachmentId', new IdPipe('attachmentId')) attachmentId: number,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const { row, body } = await this.attachments.open(projectId, eventId, attachmentId);
    response.setHeader('Content-Type', row.contentType);
    response.setHeader('Content-Length', String(row.size));
    response.setHeader('Content-Disposition', contentDisposition(row.name));
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Security-Policy', DOWNLOAD_CONTENT_SECURITY_POLICY);
    response.setHeader('Cache-Control', 'private, no-store');
    return new StreamableFile(body);
  }
}
