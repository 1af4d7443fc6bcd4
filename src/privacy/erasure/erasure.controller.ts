import { Controller, Delete, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../../access/route-access.decorator';
import { Actor } from '../../audit/actor.decorator';
import type { AuditActor } from '../../audit/audit-log.service';
import { IdPipe } from '../../common/id.pipes';
import { InvalidInputError } from '../../common/domain-errors';
import { ApiErrors } from '../../http/api-responses';
import { ErasurePreview, ErasureReport } from '../dto/erasure-report.response';
import { ErasureService } from './erasure.service';

@ApiTags('data protection')
@ApiBearerAuth()
@Controller('api/projects')
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  /**
   * Erases a person's data from the project: their events in every partition, the files attached
   * to them, feedback about them or from their address; counts and rollups corrected. The
   * identifier is `id:…`, `email:…`, `username:…`, `ip:…`, or a bare value matched against all four.
   */
  @Delete(':id/users/:identifier')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: ErasureReport })
  @ApiErrors(400)
  erase(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Param('identifier') identifier: string,
  ): Promise<ErasureReport> {
    return this.erasure.erase(id, identifier, actor);
  }

  /**
   * What erasing the person's data would remove, kind by kind, without removing anything: the
   * counts the erasure then reports. The identifier is read as for the erasure.
   */
  @Get(':id/users/:identifier/erasure-preview')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: ErasurePreview })
  @ApiErrors(400)
  preview(@Param('id', IdPipe) id: number, @Param('identifier') identifier: string): Promise<ErasurePreview> {
    return this.erasure.preview(id, identifier);
  }

  /** Without an identifier the path would not match at all: say what is missing instead of 404. */
  @Delete(':id/users')
  @Requires('project:write', { projectId: 'id' })
  @ApiExcludeEndpoint()
  eraseNobody(@Param('id', IdPipe) _id: number): never {
    throw new InvalidInputError('the identifier is empty: give a user id, e-mail, username or IP address');
  }
}
