import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * openapi.json and the dashboard's types are generated (`npm run openapi`) and checked in: the
 * dashboard is type-checked against them. They must be what the routes give now. In a process of
 * its own: openapi-typescript is an ES module, which jest's module loader does not load.
 */
describe('npm run openapi', () => {
  it('has written openapi.json and dashboard/src/api-schema.d.ts from the current routes', async () => {
    const root = join(__dirname, '..', '..');
    const failure = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join('src', 'openapi', 'write-openapi.ts'), '--check'],
      { cwd: root },
    ).then(
      () => '',
      (error: { stderr?: string; message: string }) => error.stderr?.trim() || error.message,
    );
    expect(failure).toBe('');
  }, 120_000);
});
