import { Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/public.decorator';
import { AllowEnvelopeDsnAuth, ClientKeyGuard, IngestRequest } from './client-key.guard';
import { IngestResult, IngestService } from './ingest.service';

/**
 * Sentry-compatible ingestion. No pipes or interceptors here: the body is a raw stream (the JSON
 * parser skips these paths, see INGEST_PATH) read by IngestService, which parses headers only.
 * Express routing is not strict, so the paths match with and without the trailing slash.
 */
@ApiExcludeController()
@Public()
@UseGuards(ClientKeyGuard)
@Controller('api/:projectId')
export class IngestController {
  constructor(private readonly ingest: IngestService) {}

  @Post('envelope')
  @HttpCode(200)
  @AllowEnvelopeDsnAuth()
  envelope(@Req() request: IngestRequest, @Res({ passthrough: true }) response: Response): Promise<IngestResult> {
    return this.ingest.envelope(request, response);
  }

  /** The legacy endpoint of older SDKs: the body is one event JSON. */
  @Post('store')
  @HttpCode(200)
  store(@Req() request: IngestRequest, @Res({ passthrough: true }) response: Response): Promise<IngestResult> {
    return this.ingest.store(request, response);
  }
}
