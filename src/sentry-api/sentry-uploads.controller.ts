import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ArtifactUploadService, chunkUploadOptions } from '../artifacts/artifact-upload.service';
import type { AssembleAnswer } from '../artifacts/assemble-state';
import { AssembleBundleDto } from './dto/assemble-bundle.dto';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';

/**
 * The part of Sentry's API that sentry-cli and the bundler plugins use to upload source maps
 * (`/api/0/`, authenticated with this server's API tokens). There is one organization: any slug
 * names it (`default` in docs/source-maps.md).
 */
@ApiTags('sentry-cli')
@ApiBearerAuth()
@Controller('api/0')
export class SentryUploadsController {
  constructor(private readonly uploads: ArtifactUploadService) {}

  /** `sentry-cli info`: who the token is (nobody in particular) and what it may do. */
  @Get()
  @Requires('account')
  info(): { user: null; auth: { scopes: string[] } } {
    return {
      user: null,
      auth: { scopes: ['org:read', 'project:read', 'project:write', 'project:releases'] },
    };
  }

  @Get('organizations/:org/chunk-upload')
  @Requires('project:write')
  options(@Param('org') org: string): Record<string, unknown> {
    return chunkUploadOptions(org);
  }

  /** Chunks of a bundle, one multipart part each (see readChunkUpload). */
  @Post('organizations/:org/chunk-upload')
  @Requires('project:write')
  @HttpCode(200)
  async chunks(@Req() request: Request): Promise<void> {
    await this.uploads.storeChunks(request);
  }

  /** Always 200 for a well-formed request: the state says what happened (see assemble-state.ts). */
  @Post('organizations/:org/artifactbundle/assemble')
  @Requires('project:write')
  @HttpCode(200)
  assemble(@CurrentAccess() access: Access, @Body() body: AssembleBundleDto): Promise<AssembleAnswer> {
    return this.uploads.assemble(body, access.projects);
  }
}
