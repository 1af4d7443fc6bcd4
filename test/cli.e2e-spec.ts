import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS } from '../src/schema/data-source-options';
import { startTestApp, TestApp } from './helpers/app';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';

/**
 * Each run starts a process that compiles and loads the command's modules: a few seconds idle, many
 * more next to other work. One run may take this long before it counts as hung.
 */
const CLI_RUN_TIMEOUT = 150_000;
/** A test that runs the command line several times in a row. */
const SEVERAL_RUNS_TIMEOUT = 3 * CLI_RUN_TIMEOUT;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the operator CLI exactly as an operator would: `npm run cli -- …` from the repository root. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'cli', '--', ...args],
      {
        cwd: join(__dirname, '..'),
        env: {
          ...process.env,
          DATABASE_URL: testDatabaseUrl(),
          REDIS_URL: TEST_REDIS_URL,
          CREATE_SUPERUSER: '',
          ...env,
        },
        timeout: CLI_RUN_TIMEOUT,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function lastLine(output: string): string {
  const lines = output.trimEnd().split('\n');
  return lines[lines.length - 1];
}

describe('operator CLI', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it(
    'token:create prints a working token alone on the last line',
    async () => {
      const result = await runCli(['token:create', '--description', 'ci']);
      expect(result.code).toBe(0);
      const token = lastLine(result.stdout);
      expect(token).toMatch(/^[0-9a-f]{40}$/);
      await t.http().get('/api/projects').set('Authorization', `Bearer ${token}`).expect(200);
      const list = await t.api().get('/api/tokens').expect(200);
      expect(list.body.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ description: 'ci', token: `${token.slice(0, 8)}...****` }),
        ]),
      );
    },
    CLI_RUN_TIMEOUT,
  );

  it(
    'user:create creates a dashboard user, and resets the password when run again',
    async () => {
      const first = await runCli(['user:create', '--email', 'Ops@Example.com', '--password', 'first-pass']);
      expect(first.code).toBe(0);
      expect(lastLine(first.stdout)).toMatch(/^user ops@example\.com is ready \(id \d+, owner\)$/);
      await t
        .http()
        .post('/auth/login')
        .send({ email: 'ops@example.com', password: 'first-pass' })
        .expect(200);

      const second = await runCli(['user:create', '--email=ops@example.com', '--password=second-pass']);
      expect(second.code).toBe(0);
      expect(lastLine(second.stdout)).toBe(lastLine(first.stdout));
      await t
        .http()
        .post('/auth/login')
        .send({ email: 'ops@example.com', password: 'first-pass' })
        .expect(401);
      await t
        .http()
        .post('/auth/login')
        .send({ email: 'ops@example.com', password: 'second-pass' })
        .expect(200);

      const viewer = await runCli([
        'user:create',
        '--email=ops@example.com',
        '--password=third-pass',
        '--role=viewer',
      ]);
      expect(lastLine(viewer.stdout)).toMatch(/^user ops@example\.com is ready \(id \d+, viewer\)$/);
      const login = await t
        .http()
        .post('/auth/login')
        .send({ email: 'ops@example.com', password: 'third-pass' })
        .expect(200);
      const me = await t
        .http()
        .get('/auth/me')
        .set('Cookie', String(login.headers['set-cookie']).split(';')[0]);
      expect(me.body).toMatchObject({ email: 'ops@example.com', role: 'viewer' });
    },
    SEVERAL_RUNS_TIMEOUT,
  );

  it(
    'migrate creates a missing database, applies every migration once, and exits',
    async () => {
      const url = new URL(testDatabaseUrl());
      const name = `${url.pathname.slice(1)}_migrate`;
      url.pathname = `/${name}`;
      const admin = new Client({ connectionString: testDatabaseUrl() });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        const first = await runCli(['migrate'], { DATABASE_URL: url.toString() });
        expect(first.code).toBe(0);
        expect(lastLine(first.stdout)).toBe(`applied ${MIGRATIONS.length} migration(s)`);
        for (const migration of MIGRATIONS)
          expect(first.stderr).toContain(`applied migration ${migration.name}`);

        const migrated = new Client({ connectionString: url.toString() });
        await migrated.connect();
        try {
          const rows = await migrated.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
          expect(rows.rows.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
          await migrated.query('SELECT 1 FROM issues LIMIT 1');
        } finally {
          await migrated.end();
        }

        const again = await runCli(['migrate'], { DATABASE_URL: url.toString() });
        expect(again.code).toBe(0);
        expect(lastLine(again.stdout)).toBe('no pending migrations');
        expect(again.stderr).not.toContain('applied migration');
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      }
    },
    SEVERAL_RUNS_TIMEOUT,
  );

  it(
    'migrate fails with exit code 1 when the database cannot be reached',
    async () => {
      const result = await runCli(['migrate'], {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/error_tracker',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: /m);
      expect(result.stdout).not.toContain('migration');
    },
    CLI_RUN_TIMEOUT,
  );

  it(
    'prints help',
    async () => {
      const result = await runCli(['help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('token:create --description');
      expect(result.stdout).toContain('user:create --email');
      expect(result.stdout).toMatch(/^ {2}migrate /m);
    },
    CLI_RUN_TIMEOUT,
  );

  it.each([
    [['nope'], 'error: unknown command "nope"'],
    [['token:create'], 'error: token:create: missing --description'],
    [['token:create', '--description'], 'error: --description needs a value'],
    [
      ['token:create', '--description', 'ci', '--admin', 'yes'],
      'error: token:create: unknown option --admin',
    ],
    [['user:create', '--email', 'ops@example.com'], 'error: user:create: missing --password'],
    [
      ['user:create', '--email', 'not-an-email', '--password', 'x'],
      'error: user:create: --email must be an e-mail address',
    ],
    [
      ['user:create', '--email', 'ops@example.com', '--password', 'x', '--role', 'boss'],
      'error: user:create: --role must be one of viewer, member, admin, owner',
    ],
    [['migrate', '--force', 'yes'], 'error: migrate: unknown option --force'],
  ])(
    'fails with exit code 1 and a message on stderr for %j',
    async (args, message) => {
      const result = await runCli(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).not.toMatch(/[0-9a-f]{40}/);
    },
    CLI_RUN_TIMEOUT,
  );
});
