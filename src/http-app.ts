import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import { json, NextFunction, Request, Response } from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AppModule } from './app.module';
import { IngestHttpHandler } from './ingest/ingest-http.handler';
import { bodyParserError } from './http/api-error.filter';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './common/cors';
import { AppLogger, createPino, requestLogMiddleware } from './logger';
import { ApiErrorFilter } from './http/api-error.filter';
import { jsonNesting, NESTING_SCAN_FROM_BYTES } from './common/json-nesting';
import { createValidationPipe, MAX_BODY_DEPTH } from './common/validation';
import { validateEnvironment, ResolvedConfig } from './config/environment';

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
  const pinoLogger = createPino(options.logger === false ? 'silent' : config.logLevel);
  app.useLogger(new AppLogger(pinoLogger));

  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.set('query parser', 'simple');
  const jsonParser = json({ limit: '1mb', verify: refuseDeepJson });
  app.use((request: Request, response: Response, next: NextFunction) =>
    jsonParser(request, response, (error?: unknown) => next(error ? bodyParserError(error) : undefined)),
  );
  app.use(requestLogMiddleware(pinoLogger));
  app.use(cookieParser());
  app.enableCors({
    origin: '*',
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
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
        .setDescription(
          'Management API of the error tracker. Ingestion follows the Sentry envelope protocol.',
        )
        .setVersion('1')
        .addBearerAuth({ type: 'http', scheme: 'bearer', description: '40 hexadecimal characters' })
        .build(),
    );
    SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  }
  await app.init();
  limitRequestTime(app.getHttpServer() as Server, config.REQUEST_TIMEOUT_SECONDS * 1000);
  if (config.APP_ROLE !== 'worker') mountIngestAheadOfExpress(app);
  return { app, config };
}

/**
 * Runs before body-parser parses, and so before authentication: V8 takes about 100 ms to parse a
 * megabyte of `[[[[…`, which anyone could send to any route. Small bodies cost little whatever
 * their shape; the validation pipe refuses those nested too deeply after parsing.
 */
function refuseDeepJson(_request: IncomingMessage, _response: ServerResponse, body: Buffer): void {
  if (body.length < NESTING_SCAN_FROM_BYTES) return;
  if (jsonNesting(body.toString('latin1'), MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw Object.assign(new Error('request body is nested too deeply'), {
      status: 400,
      type: 'entity.too.deep',
    });
  }
}

/** TRUST_PROXY as Express takes it: a boolean, a hop count, or a list of addresses and subnets. */
export function trustProxySetting(value: string): boolean | number | string[] {
  const trimmed = value.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return trimmed.split(',').map((part) => part.trim());
}

/**
 * Node's default lets a request take 300 s to arrive, and checks only every 30 s: a client that
 * trickles its body a byte at a time would hold a connection (and an ingest read) for minutes.
 * The check interval is read when the server starts listening, which happens after this.
 */
function limitRequestTime(server: Server, requestTimeoutMs: number): void {
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(requestTimeoutMs, 20_000);
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1_000,
    requestTimeoutMs,
  );
}

/**
 * Puts the ingest handler in front of Express on the HTTP server itself, so envelopes skip Express
 * routing and Nest's request pipeline entirely (see IngestHttpHandler for why).
 */
function mountIngestAheadOfExpress(app: INestApplication): void {
  const ingest = app.get(IngestHttpHandler);
  const server = app.getHttpServer() as Server;
  const [express] = server.listeners('request') as ((
    request: IncomingMessage,
    response: ServerResponse,
  ) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!ingest.tryHandle(request, response)) express(request, response);
  });
}
