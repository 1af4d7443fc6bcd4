import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { ResolvedConfig } from '../../src/config/environment';
import { createHttpApp } from '../../src/http-app';
import { TokensService } from '../../src/tokens/tokens.service';
import { testDatabaseUrl, TEST_REDIS_URL } from './test-env';

export interface TestApp {
  app: INestApplication;
  config: ResolvedConfig;
  /** Base URL of the listening server (for SDKs and raw HTTP clients). */
  url: string;
  port: number;
  /** A valid API token and a supertest agent that sends it. */
  token: string;
  api: () => TestAgent;
  /** Unauthenticated supertest agent. */
  http: () => TestAgent;
  close: () => Promise<void>;
}

/**
 * Boots the real application (same factory as production) on a random port, against the test
 * database and a Redis key prefix of its own so parallel apps and leftover jobs never mix.
 */
export async function startTestApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const { app, config } = await createHttpApp(
    {
      DATABASE_URL: testDatabaseUrl(),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      SERVE_DASHBOARD: 'false',
      PORT: '0',
      // Tests run retention themselves, with the clock they need (RetentionService.run(now)).
      RETENTION_SCHEDULE: 'off',
      // Tests read the backlog and the workers from /health/ready, of worker instances too, which
      // have no sign-in; test/health.e2e-spec.ts checks the default (the details to admins only).
      HEALTH_DETAILS: 'public',
      ...overrides,
    },
    { logger: process.env.TEST_LOG_LEVEL !== undefined },
  );
  // PORT is 0 (any free port) unless a test needs a known one, e.g. in PUBLIC_URL for redirects.
  await app.listen(Number(overrides.PORT ?? 0), '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const token = config.APP_ROLE === 'worker' ? '' : (await app.get(TokensService).create('e2e')).token;
  const server = app.getHttpServer();
  return {
    app,
    config,
    url,
    port,
    token,
    api: () => {
      const agent = request.agent(server);
      agent.set('Authorization', `Bearer ${token}`);
      return agent;
    },
    http: () => request.agent(server),
    close: () => app.close(),
  };
}
