import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import { Page } from '../common/pagination';
import { CommentBodyDto, ListCommentsQuery } from './dto/comment.dto';
import { IssueCommentsService } from './issue-comments.service';
import { CommentView } from './dto/comment.response';
import { ApiIssueMoved } from './dto/issue.response';
import { ApiErrors, PageOf } from '../http/api-responses';
import { IssuesService } from './issues.service';

@ApiTags('issues')
@ApiBearerAuth()
@Controller('api/issues/:id/comments')
export class IssueCommentsController {
  constructor(
    private readonly issues: IssuesService,
    private readonly comments: IssueCommentsService,
  ) {}

  /** Oldest first; `html` is the Markdown rendered and sanitized. */
  @Get()
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: PageOf(CommentView) })
  @ApiErrors(400)
  @ApiIssueMoved()
  async list(@Param('id', IdPipe) id: number, @Query() query: ListCommentsQuery): Promise<Page<CommentView>> {
    await this.issues.get(id); // 404, or a pointer to the issue it was merged into (its comments moved there)
    return this.comments.page(id, query);
  }

  @Post()
  @Requires('project:triage', { issueId: 'id' })
  @ApiCreatedResponse({ type: CommentView })
  @ApiErrors(400)
  @ApiIssueMoved()
  async add(
    @CurrentAccess() access: Access,
    @Param('id', IdPipe) id: number,
    @Body() body: CommentBodyDto,
  ): Promise<CommentView> {
    await this.issues.get(id);
    return this.comments.add(id, access, body.body);
  }

  /** Its author's, or an admin's. */
  @Patch(':commentId')
  @Requires('project:triage', { issueId: 'id' })
  @ApiOkResponse({ type: CommentView })
  @ApiErrors(400)
  @ApiIssueMoved()
  async edit(
    @CurrentAccess() access: Access,
    @Param('id', IdPipe) id: number,
    @Param('commentId', new IdPipe('comment_id')) commentId: number,
    @Body() body: CommentBodyDto,
  ): Promise<CommentView> {
    await this.issues.get(id);
    return this.comments.edit(id, commentId, access, body.body);
  }

  @Delete(':commentId')
  @HttpCode(204)
  @Requires('project:triage', { issueId: 'id' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400)
  @ApiIssueMoved()
  async remove(
    @CurrentAccess() access: Access,
    @Param('id', IdPipe) id: number,
    @Param('commentId', new IdPipe('comment_id')) commentId: number,
  ): Promise<void> {
    await this.issues.get(id);
    await this.comments.remove(id, commentId, access);
  }
}
