import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** dependency-cruiser over `src` of `cwd` with the project's rules: the violations' rule names. */
function violations(cwd: string): string[] {
  let output: string;
  try {
    output = execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'src',
        '--config',
        CONFIG,
        '--output-type',
        'json',
      ],
      { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (error) {
    // It exits with the number of violations.
    output = (error as { stdout: string }).stdout;
  }
  const report = JSON.parse(output) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return report.summary.violations.map(
    (violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`,
  );
}

/** A small tree laid out like the server, with the files given. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  cpSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the layer rules (npm run lint runs them over src/)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const check = (files: Record<string, string>) => {
    const dir = tree(files);
    dirs.push(dir);
    return violations(dir);
  };

  it('let a folder import the folders below it', () => {
    expect(
      check({
        'src/config/a.ts': 'export const a = 1;\n',
        'src/issues/b.ts': "import { a } from '../config/a';\nexport const b = a;\n",
      }),
    ).toEqual([]);
  });

  it('refuse an import that runs upward, such as infrastructure reaching into a domain folder', () => {
    expect(
      check({
        'src/issues/b.ts': 'export const b = 1;\n',
        'src/database/a.ts': "import { b } from '../issues/b';\nexport const a = b;\n",
      }),
    ).toEqual(['layer-database: src/database/a.ts → src/issues/b.ts']);
  });

  it('refuse two folders that import each other, and a cycle between files', () => {
    const found = check({
      'src/projects/a.ts': "import { b } from '../issues/b';\nexport const a = (): number => b();\n",
      'src/issues/b.ts': "import { a } from '../projects/a';\nexport const b = (): number => a();\n",
    });
    expect(found).toContain('layer-projects: src/projects/a.ts → src/issues/b.ts');
    expect(found.filter((name) => name.startsWith('no-circular')).length).toBeGreaterThan(0);
  });

  it('refuse a folder that has no place in the layers', () => {
    expect(
      check({ 'src/newfolder/a.ts': "import { join } from 'node:path';\nexport const a = join;\n" }),
    ).toEqual(['unplaced-folder: src/newfolder/a.ts → path']);
  });

  it('keep repositories below services, and services below controllers', () => {
    expect(
      check({
        'src/issues/x.service.ts': 'export const s = 1;\n',
        'src/issues/x.controller.ts': 'export const c = 1;\n',
        'src/issues/x.repository.ts': "import { s } from './x.service';\nexport const r = s;\n",
        'src/issues/y.service.ts': "import { c } from './x.controller';\nexport const t = c;\n",
      }).sort(),
    ).toEqual([
      'data-below-services: src/issues/x.repository.ts → src/issues/x.service.ts',
      'services-below-entry-points: src/issues/y.service.ts → src/issues/x.controller.ts',
    ]);
  });

  it('keep data modules to data: a *-data.module.ts imports no service', () => {
    expect(
      check({
        'src/issues/x.service.ts': 'export const s = 1;\n',
        'src/issues/x.repository.ts': 'export const r = 1;\n',
        'src/issues/x-data.module.ts':
          "import { r } from './x.repository';\nimport { s } from './x.service';\nexport const m = [r, s];\n",
      }),
    ).toEqual(['data-below-services: src/issues/x-data.module.ts → src/issues/x.service.ts']);
  });
});
