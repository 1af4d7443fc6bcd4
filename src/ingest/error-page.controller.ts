import {
  BadRequestException,
  Controller,
  ForbiddenException,
  Get,
  HttpCode,
  PayloadTooLargeException,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiQuery, ApiSchema, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/public.decorator';
import { FEEDBACK_SOURCES, QueuedFeedback, readReport, refusalMessage } from '../feedback/feedback-record';
import { ApiErrors } from '../http/api-responses';
import { canonicalUuid, keyFromDsn } from './client-key';
import { DIALOG_TEXTS, dialogTexts, errorPageScript } from './error-page-script';
import { FeedbackIntake, feedbackRefusalOutcome } from './feedback-intake';
import { ProjectKeys } from './project-keys';
import { EventLimits } from '../limits/event-limits';
import { FeedbackLimits } from '../limits/category-limits';
import { categoryRateLimited, categoryRejection, eventLimitRejection } from './limit-rejections';
import { OutcomeCounter } from '../outcomes/outcome-counter';

/**
 * The dialog's form is three short fields: 128 + 75 + 4096 characters, each up to 9 bytes once
 * percent-encoded (a 3-byte character), is under 40 KiB. A body beyond this is not that form.
 */
export const MAX_REPORT_FORM_BYTES = 64 * 1024;

@ApiSchema({ description: 'The report was accepted (queued to be stored).' })
class ReportAccepted {}

interface DialogRequest {
  projectId: number;
  eventId: string;
}

/**
 * The crash-report dialog of `Sentry.showReportDialog`: GET returns the script that shows it (the
 * SDK adds it to the page as a cross-origin script, so it is served to any origin), POST receives
 * its form. Both are authenticated by the DSN in the query, as Sentry's `/api/embed/error-page/`:
 * a DSN that names no project key is refused (403) before anything else is done. The report goes
 * through the digest queue like every feedback: answered 200 once Redis has it.
 */
@ApiTags('ingest')
@Controller('api/embed/error-page')
export class ErrorPageController {
  constructor(
    private readonly projectKeys: ProjectKeys,
    private readonly intake: FeedbackIntake,
    private readonly eventLimits: EventLimits,
    private readonly feedbackLimits: FeedbackLimits,
    private readonly outcomes: OutcomeCounter,
  ) {}

  @Get()
  @Public()
  @ApiQuery({ name: 'dsn', description: 'The public DSN of the project.' })
  @ApiQuery({ name: 'eventId', description: 'The event the report is about (32 hex digits or a UUID).' })
  @ApiQuery({ name: 'name', required: false, description: 'Prefills the name.' })
  @ApiQuery({ name: 'email', required: false, description: 'Prefills the e-mail.' })
  @ApiQuery({
    name: 'title',
    required: false,
    description: `The dialog's texts can be replaced: ${Object.keys(DIALOG_TEXTS).join(', ')}.`,
  })
  @ApiOkResponse({
    description: 'The script that shows the dialog in the page.',
    content: { 'text/javascript': { schema: { type: 'string' } } },
  })
  @ApiErrors(400, [403, 'The DSN names no key of its project.'])
  async script(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<string> {
    await this.authenticate(request);
    const query = request.query as Record<string, unknown>;
    // Set here, not with @Header: a refusal must stay the usual JSON error.
    response.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    return errorPageScript({
      endpoint: `${request.protocol}://${request.get('host') ?? ''}${request.originalUrl}`,
      texts: dialogTexts(query),
      name: typeof query.name === 'string' ? query.name.slice(0, 128) : '',
      email: typeof query.email === 'string' ? query.email.slice(0, 75) : '',
    });
  }

  @Post()
  @Public()
  @HttpCode(200)
  @ApiQuery({ name: 'dsn', description: 'The public DSN of the project.' })
  @ApiQuery({ name: 'eventId', description: 'The event the report is about.' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['name', 'email', 'comments'],
      properties: {
        name: { type: 'string', maxLength: 128 },
        email: { type: 'string', maxLength: 75 },
        comments: { type: 'string', maxLength: 4096 },
      },
    },
  })
  @ApiOkResponse({ type: ReportAccepted })
  @ApiErrors(
    400,
    [403, 'The DSN names no key of its project.'],
    [413, `The body is larger than ${MAX_REPORT_FORM_BYTES} bytes.`],
    429,
    503,
  )
  async submit(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ReportAccepted> {
    const { projectId, eventId } = await this.authenticate(request);
    // The limits of an envelope of feedback: refused past the event rate limits, quotas and spike
    // protection, failing open when Redis does; a report is not an event, so its count goes back.
    const { countedAt, refused } = await this.eventLimits.check(projectId);
    if (refused) {
      const refusal = eventLimitRejection(refused);
      request.resume();
      for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
      this.outcomes.count(projectId, [
        {
          outcome: 'rate_limited',
          category: 'feedback',
          reason: refusal.outcomeReason ?? 'rate_limit',
          quantity: 1,
        },
      ]);
      throw refusal;
    }
    try {
      return await this.takeReport(request, response, projectId, eventId);
    } finally {
      if (countedAt !== undefined) await this.eventLimits.giveBack(projectId, countedAt);
    }
  }

  private async takeReport(
    request: Request,
    response: Response,
    projectId: number,
    eventId: string,
  ): Promise<ReportAccepted> {
    const form = await readForm(request);
    const fields = { eventId, name: form.name, email: form.email, comments: form.comments };
    for (const required of ['name', 'email', 'comments'] as const) {
      if (typeof fields[required] !== 'string' || fields[required].trim() === '') {
        throw new BadRequestException(`${required} is required`);
      }
    }
    if (!/^[^\s@]+@[^\s@]+$/.test((form.email ?? '').trim())) {
      throw new BadRequestException('email is not an e-mail address');
    }
    const reading = readReport(fields, projectId, Date.now(), FEEDBACK_SOURCES.reportDialog);
    if ('refused' in reading) {
      this.outcomes.count(projectId, [feedbackRefusalOutcome(reading.refused)]);
      throw new BadRequestException(refusalMessage(reading.refused));
    }
    await this.takeWithinFeedbackLimit(response, projectId, reading.feedback);
    return {};
  }

  /** A report counts against the project's feedback limit too, as feedback in an envelope does. */
  private async takeWithinFeedbackLimit(
    response: Response,
    projectId: number,
    feedback: QueuedFeedback,
  ): Promise<void> {
    const allowance = await this.feedbackLimits.take(projectId, 1);
    if (allowance.taken === 0) {
      const refusal = categoryRejection(this.feedbackLimits, allowance);
      for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
      this.outcomes.count(projectId, [categoryRateLimited(this.feedbackLimits, 1)]);
      throw refusal;
    }
    try {
      await this.intake.enqueue([feedback]);
    } catch (error) {
      await this.feedbackLimits.giveBack(projectId, 1);
      throw error;
    }
  }

  /** The DSN's key is one of its project's keys; the event id a UUID. */
  private async authenticate(request: Request): Promise<DialogRequest> {
    const query = request.query as Record<string, unknown>;
    const eventId = typeof query.eventId === 'string' ? canonicalUuid(query.eventId) : undefined;
    if (!eventId) throw new BadRequestException('eventId is missing or not an event id');
    const dsn = keyFromDsn(query.dsn);
    const key = dsn && canonicalUuid(dsn.key);
    if (!dsn || !key || !(dsn.projectId > 0 && dsn.projectId <= 2_147_483_647)) {
      throw new BadRequestException('dsn is missing or not a DSN');
    }
    const valid = this.projectKeys.isValid(dsn.projectId, key);
    if (!(valid === true || (valid !== false && (await valid)))) {
      throw new ForbiddenException(`unknown client key for project ${dsn.projectId}`);
    }
    return { projectId: dsn.projectId, eventId };
  }
}

/** The form's fields; a JSON body (already parsed) is read too. */
async function readForm(request: Request): Promise<Record<string, string | undefined>> {
  if (request.body !== undefined && request.body !== null && typeof request.body === 'object') {
    return request.body as Record<string, string | undefined>;
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_REPORT_FORM_BYTES) {
    request.resume();
    throw new PayloadTooLargeException(`report form is larger than ${MAX_REPORT_FORM_BYTES} bytes`);
  }
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_REPORT_FORM_BYTES) return void chunks.push(chunk);
      // The rest is read and dropped, so that the client gets its 413 rather than a reset.
      request.off('data', onData);
      request.resume();
      reject(new PayloadTooLargeException(`report form is larger than ${MAX_REPORT_FORM_BYTES} bytes`));
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', () => reject(new BadRequestException('request body could not be read')));
  });
  const params = new URLSearchParams(body.toString('utf8'));
  return {
    name: params.get('name') ?? undefined,
    email: params.get('email') ?? undefined,
    comments: params.get('comments') ?? undefined,
  };
}
