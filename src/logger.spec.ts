import { EventEmitter } from 'node:events';
import pino from 'pino';
import { redactUrl, requestLogMiddleware } from './logger';

describe('redactUrl', () => {
  it('hides the values of parameters named like secrets, whatever their spelling', () => {
    expect(redactUrl('/api/1/envelope/?sentry_key=abc123&sentry_version=7')).toBe(
      '/api/1/envelope/?sentry_key=[redacted]&sentry_version=7',
    );
    expect(redactUrl('/auth/login?password=hunter2&next=/')).toBe('/auth/login?password=[redacted]&next=/');
    expect(redactUrl('/x?access_token=t&API_KEY=k&Session=s&client%5Fsecret=c')).toBe(
      '/x?access_token=[redacted]&API_KEY=[redacted]&Session=[redacted]&client%5Fsecret=[redacted]',
    );
  });

  it('hides the secret of an invitation link, which is in its path', () => {
    const secret = 'a'.repeat(64);
    expect(redactUrl(`/auth/invitations/${secret}/accept`)).toBe('/auth/invitations/[redacted]/accept');
    expect(redactUrl(`/auth/invitations/${secret}?x=1`)).toBe('/auth/invitations/[redacted]?x=1');
    expect(redactUrl('/api/invitations/12')).toBe('/api/invitations/12');
  });

  it('keeps everything else as sent', () => {
    expect(redactUrl('/api/projects/1/issues?state=open&limit=10')).toBe(
      '/api/projects/1/issues?state=open&limit=10',
    );
    expect(redactUrl('/api/projects')).toBe('/api/projects');
    expect(redactUrl('/x?%E0%A4%A=1&flag')).toBe('/x?%E0%A4%A=1&flag');
  });
});

describe('requestLogMiddleware', () => {
  function run(
    middleware: ReturnType<typeof requestLogMiddleware>,
    path: string,
    status: number,
    route?: string,
  ) {
    const response = Object.assign(new EventEmitter(), { statusCode: status });
    const request = {
      method: 'GET',
      path,
      originalUrl: `${path}?token=secret`,
      route: route ? { path: route } : undefined,
    };
    middleware(request as never, response as never, () => undefined);
    response.emit('finish');
  }

  it('logs one line per kind of failure and interval, with the count of the others, and no secrets', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const middleware = requestLogMiddleware(logger, 60_000);
    for (let i = 0; i < 50; i++) run(middleware, `/api/issues/${i}`, 503, '/api/issues/:id');
    for (let i = 0; i < 50; i++) run(middleware, `/random-${i}`, 404);
    run(middleware, '/api/projects', 200, '/api/projects');
    expect(lines.map((line) => line.msg)).toEqual([
      'GET /api/issues/0?token=[redacted] 503',
      'GET /random-0?token=[redacted] 404',
    ]);
  });
});
