import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Access, CurrentAccess, seesProject } from '../access/access';
import { roleAtLeast } from '../access/roles';
import { Requires } from '../access/route-access.decorator';
import { actorOf, AuditLog } from '../audit/audit-log.service';
import { UsersService } from '../users/users.service';
import { ForbiddenError, InvalidInputError } from '../common/domain-errors';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { CreateTokenDto } from './dto/create-token.dto';
import { TokensService, TokenView } from './tokens.service';

/**
 * Tokens belong to the account that makes them (an operator token makes operator tokens) and act
 * with that account's role at each request, narrowed further when asked to.
 */
@ApiTags('tokens')
@ApiBearerAuth()
@Controller('api/tokens')
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
    private readonly users: UsersService,
  ) {}

  /** Admins see every token (to revoke them); others their own. */
  @Get()
  @Requires('account')
  async list(@CurrentAccess() access: Access): Promise<{ data: TokenView[] }> {
    return { data: await this.tokens.list(this.ownerScope(access)) };
  }

  /** The only response that ever contains the full token. */
  @Post()
  @Requires('account')
  async create(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Body() body: CreateTokenDto,
  ): Promise<TokenView> {
    let projectIds: number[] | null = null;
    if (body.project_ids !== undefined) {
      for (const id of body.project_ids) {
        if (!seesProject(access, id) || !(await this.projects.exists(id))) {
          throw new InvalidInputError(`project_ids: no project has the id ${id}`);
        }
      }
      projectIds = body.project_ids;
    }
    const created = await this.tokens.create(body.description, {
      userId: access.userId,
      readOnly: body.read_only ?? false,
      projectIds,
    });
    await this.audit.record(
      actorOf(access, request.ip),
      'token.create',
      { type: 'token', id: created.id },
      {
        description: created.description,
        read_only: created.read_only,
        project_ids: created.project_ids,
      },
    );
    return created;
  }

  @Delete(':id')
  @HttpCode(204)
  @Requires('account')
  async remove(@CurrentAccess() access: Access, @Req() request: Request, @Param('id', IdPipe) id: number) {
    const token = await this.tokens.find(id, this.ownerScope(access));
    // An owner's tokens are an owner's business, as the owner's account is; an operator token (no
    // account) acts as an owner.
    if (token.userId !== access.userId && !roleAtLeast(access.role, 'owner')) {
      const holder = token.userId === null ? null : await this.users.findById(token.userId);
      if (token.userId === null || holder?.role === 'owner') {
        throw new ForbiddenError("only an owner can delete an owner's token");
      }
    }
    await this.tokens.remove(token);
    await this.audit.record(
      actorOf(access, request.ip),
      'token.delete',
      { type: 'token', id },
      {
        description: token.description,
        user_id: token.userId,
      },
    );
  }

  /** Whose tokens this request may list and delete: all (undefined) for admins, else its account's. */
  private ownerScope(access: Access): number | undefined {
    if (roleAtLeast(access.role, 'admin') && !access.narrowed) return undefined;
    // A narrowed operator token has no account, and so no tokens of its own (no account has id 0).
    return access.userId ?? 0;
  }
}
