/**
 * Source map uploads under retention: a bundle goes when it was neither uploaded nor used by an
 * event within its project's retention; upload chunks go a day after their upload.
 */
import { DataSource } from 'typeorm';
import { RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';

describe('source map retention', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => t?.close());

  async function bundle(projectId: number, name: string, createdDaysAgo: number, usedDaysAgo: number | null) {
    const [{ id }] = await db.query(
      `INSERT INTO artifact_bundles (project_id, checksum, release, file_count, size, created_at, last_used_at)
       VALUES ($1, repeat('a', 40), $2, 1, 3, now() - $3 * interval '1 day',
               CASE WHEN $4::int IS NULL THEN NULL ELSE now() - $4::int * interval '1 day' END)
       RETURNING id`,
      [projectId, name, createdDaysAgo, usedDaysAgo],
    );
    await db.query(
      `INSERT INTO artifact_files (bundle_id, project_id, path, url, file_type, size, data)
       VALUES ($1, $2, 'files/_/_/a.js', '~/a.js', 'minified_source', 3, 'abc')`,
      [id, projectId],
    );
  }

  it('deletes bundles unused for longer than the project keeps events, with their files, and day-old chunks', async () => {
    const short = (await t.api().post('/api/projects').send({ name: 'Short Lived' }).expect(201)).body
      .id as number;
    await t.api().patch(`/api/projects/${short}`).send({ retention_days: 3 }).expect(200);
    const long = (await t.api().post('/api/projects').send({ name: 'Long Lived' }).expect(201)).body
      .id as number;
    await bundle(short, 'old-unused', 10, null);
    await bundle(short, 'old-but-used', 10, 1);
    await bundle(short, 'recent', 1, null);
    // The default retention (90 days) applies to the other project.
    await bundle(long, 'old-for-short-only', 10, null);
    await bundle(long, 'ancient', 100, 95);
    await db.query(
      `INSERT INTO file_chunks (checksum, data, created_at) VALUES
         (repeat('1', 40), 'x', now() - interval '25 hours'), (repeat('2', 40), 'y', now() - interval '1 hour')`,
    );

    const report = await t.app.get(RetentionService).run();

    expect(report.artifactBundlesDeleted).toBe(2);
    expect(report.chunksDeleted).toBeGreaterThanOrEqual(1);
    const left: { project_id: number; release: string }[] = await db.query(
      'SELECT project_id, release FROM artifact_bundles WHERE project_id = ANY($1) ORDER BY release',
      [[short, long]],
    );
    expect(left).toEqual([
      { project_id: short, release: 'old-but-used' },
      { project_id: long, release: 'old-for-short-only' },
      { project_id: short, release: 'recent' },
    ]);
    const [{ files }] = await db.query(
      'SELECT count(*)::int AS files FROM artifact_files WHERE project_id = ANY($1)',
      [[short, long]],
    );
    expect(files).toBe(3);
    const chunks: { checksum: string }[] = await db.query(
      "SELECT checksum FROM file_chunks WHERE checksum IN (repeat('1', 40), repeat('2', 40))",
    );
    expect(chunks).toEqual([{ checksum: '2'.repeat(40) }]);
  });
});
