import {
  Body,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  HttpCode,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';
import { actorOf } from '../audit/audit-log.service';
import { AcceptInvitationDto } from '../users/dto/account.dto';
import type { AuthenticatedRequest } from '../users/request-principal';
import { originOf, requestSite } from '../users/same-origin';
import { LoginThrottle } from '../users/login-throttle.service';
import { SessionCookie } from '../users/session-cookie';
import { IdPipe } from '../common/id.pipes';
import { Public } from '../common/public.decorator';
import { AppConfig } from '../config/app-config';
import { CreateInvitationDto } from './dto/members.dto';
import { InvitationPreview, InvitationsService, InvitationView } from './invitations.service';

@ApiTags('members')
@ApiBearerAuth()
@Controller('api/invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  /** Neither accepted nor revoked; `state` says which have expired. */
  @Get()
  @Requires('members:admin')
  async list(): Promise<{ data: InvitationView[] }> {
    return { data: await this.invitations.listOpen() };
  }

  /** E-mailed when SMTP is set up (`emailed`); `link` is in this answer only, to copy. */
  @Post()
  @Requires('members:admin')
  create(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Body() body: CreateInvitationDto,
  ): Promise<InvitationView & { link: string; emailed: boolean }> {
    return this.invitations.invite(access, actorOf(access, request.ip), {
      email: body.email,
      role: body.role,
      teamIds: body.team_ids ?? [],
    });
  }

  @Delete(':id')
  @HttpCode(204)
  @Requires('members:admin')
  revoke(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
  ): Promise<void> {
    return this.invitations.revoke(actorOf(access, request.ip), id);
  }
}

/** The invitee's side: public, since they have no account yet; the link's secret is the credential. */
@ApiTags('auth')
@Controller('auth/invitations')
export class InvitationAcceptController {
  private readonly publicOrigin: string;

  constructor(
    private readonly invitations: InvitationsService,
    private readonly cookie: SessionCookie,
    private readonly throttle: LoginThrottle,
    private readonly config: AppConfig,
  ) {
    this.publicOrigin = originOf(config.publicUrl);
  }

  @Public()
  @Get(':secret')
  preview(@Param('secret') secret: string): Promise<InvitationPreview> {
    return this.invitations.preview(secret);
  }

  /** Makes the account and signs the browser in with it (like POST /auth/login). */
  @Public()
  @Post(':secret/accept')
  async accept(
    @Param('secret') secret: string,
    @Body() body: AcceptInvitationDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ id: number; email: string; role: string }> {
    if (requestSite(request, this.publicOrigin) === 'cross-site') {
      throw new ForbiddenException('cross-site sign-in refused');
    }
    if (!this.config.PASSWORD_LOGIN) {
      // The invitation is taken up at the first sign-in through the provider with its e-mail.
      throw new ForbiddenException(`accept this invitation by signing in with ${this.config.OIDC_NAME}`);
    }
    // Guessing links is throttled as sign-ins are.
    await this.throttle.attempt(body.email, request.ip, response);
    const user = await this.invitations.accept(
      secret,
      { email: body.email, password: body.password, name: body.name ?? '' },
      request.ip,
    );
    await this.throttle.succeeded(body.email);
    await this.cookie.signIn(request, response, user.id);
    return { id: user.id, email: user.email, role: user.role };
  }
}
