import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import { json, NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { bodyParserError } from './common/api-error.filter';
import { AppLogger } from './logger';
import { ApiErrorFilter } from './common/api-error.filter';
import { createValidationPipe } from './common/validation';
import { validateEnvironment, ResolvedConfig } from './config/environment';

/** Ingest routes read their body as a raw stream (compressed, size-limited), never through a parser. */
export const INGEST_PATH = /^\/api\/\d+\/(envelope|store)\/?$/;

export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Client-Auth',
  'X-Sentry-Auth',
  'Content-Encoding',
  'sentry-trace',
  'baggage',
];

export interface CreatedApp {
  app: INestApplication;
  config: ResolvedConfig;
}

/**
 * Builds the configured application: the one used by `main.ts` and by the e2e tests, so that tests
 * exercise exactly the middleware, filters and pipes that production runs.
 */
export async function createHttpApp(
  overrides: Record<string, string | undefined> = {},
  options: { logger?: boolean } = {},
): Promise<CreatedApp> {
  const config = validateEnvironment({ ...process.env, ...overrides });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  if (options.logger !== false) app.useLogger(app.get(AppLogger));
  else app.useLogger(false);

  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.set('query parser', 'simple');
  const jsonParser = json({ limit: '1mb' });
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (INGEST_PATH.test(request.path)) return next();
    jsonParser(request, response, (error?: unknown) => next(error ? bodyParserError(error) : undefined));
  });
  app.use(cookieParser());
  app.enableCors({
    origin: '*',
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ['Retry-After', 'X-Sentry-Rate-Limits'],
    optionsSuccessStatus: 204,
    maxAge: 86_400,
  });
  app.useGlobalFilters(new ApiErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  if (config.APP_ROLE !== 'worker') {
    const document = SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Error Tracker API')
        .setDescription('Management API of the error tracker. Ingestion follows the Sentry envelope protocol.')
        .setVersion('1')
        .addBearerAuth({ type: 'http', scheme: 'bearer', description: '40 hexadecimal characters' })
        .build(),
    );
    SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  }
  return { app, config };
}
