import { build } from 'esbuild';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'pg';

/** A minified bundle and its source map, as a browser app's build makes them, for bench:digest. */
export interface SourceMapFixture {
  url: string;
  debugId: string;
  mapBytes: number;
  /** Where group `g`'s error is thrown in the minified file (1-based line and column). */
  throwAt: { line: number; column: number }[];
  /** The original function that throws in group `g`. */
  functions: string[];
}

/**
 * Builds, with esbuild, an app of `handlers` checkout handlers, minified with an external
 * source map holding their sources: about 2 MB of map for the default 4,000 handlers.
 */
export async function buildSourceMapFixture(
  groups: number,
  handlers = 4_000,
): Promise<SourceMapFixture & { js: string; map: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sourcemap-'));
  try {
    const lines = [];
    for (let n = 0; n < handlers; n++) {
      lines.push(
        `export function checkoutHandler${n}(items: { price: number; quantity: number }[]): number {`,
        `  let total = 0;`,
        `  for (const item of items) total += item.price * item.quantity * ${n + 1};`,
        `  if (total > ${n}) throw new Error('checkout handler ${n} failed with ' + total);`,
        `  return total;`,
        `}`,
        '',
      );
    }
    lines.push(
      `export const handlers = [${Array.from({ length: handlers }, (_, n) => `checkoutHandler${n}`).join(', ')}];`,
    );
    writeFileSync(join(dir, 'app.ts'), lines.join('\n'));
    await build({
      entryPoints: [join(dir, 'app.ts')],
      bundle: true,
      minify: true,
      sourcemap: 'external',
      format: 'iife',
      globalName: 'shop',
      outfile: join(dir, 'app.js'),
      logLevel: 'silent',
    });
    const js = readFileSync(join(dir, 'app.js'), 'utf8');
    const map = readFileSync(join(dir, 'app.js.map'), 'utf8');
    const minifiedLines = js.split('\n');
    const throwAt: { line: number; column: number }[] = [];
    const functions: string[] = [];
    for (let group = 0; group < groups; group++) {
      const handler = (group * 7) % handlers;
      const marker = `checkout handler ${handler} failed with `;
      const line = minifiedLines.findIndex((text) => text.includes(marker));
      const at = minifiedLines[line].lastIndexOf('throw', minifiedLines[line].indexOf(marker));
      throwAt.push({ line: line + 1, column: at + 1 });
      functions.push(`checkoutHandler${handler}`);
    }
    return {
      url: 'https://shop.example.com/assets/app.js',
      debugId: randomUUID(),
      mapBytes: Buffer.byteLength(map),
      throwAt,
      functions,
      js,
      map,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stores the fixture as sentry-cli's upload would: one bundle with the minified file and its map. */
export async function storeSourceMapFixture(
  pg: Client,
  projectId: number,
  fixture: SourceMapFixture & { js: string; map: string },
): Promise<void> {
  const checksum = createHash('sha1').update(fixture.map).digest('hex');
  const { rows } = await pg.query<{ id: string }>(
    `INSERT INTO artifact_bundles (project_id, checksum, file_count, size) VALUES ($1, $2, 2, $3) RETURNING id`,
    [projectId, checksum, Buffer.byteLength(fixture.js) + fixture.mapBytes],
  );
  const files = [
    {
      path: 'files/_/_/assets/app.js',
      url: '~/assets/app.js',
      type: 'minified_source',
      ref: 'app.js.map',
      data: fixture.js,
    },
    {
      path: 'files/_/_/assets/app.js.map',
      url: '~/assets/app.js.map',
      type: 'source_map',
      ref: null,
      data: fixture.map,
    },
  ];
  for (const file of files) {
    await pg.query(
      `INSERT INTO artifact_files (bundle_id, project_id, path, url, file_type, debug_id, source_map_ref, size, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        rows[0].id,
        projectId,
        file.path,
        file.url,
        file.type,
        fixture.debugId,
        file.ref,
        Buffer.byteLength(file.data),
        Buffer.from(file.data),
      ],
    );
  }
}
