/**
 * Source map uploads as sentry-cli 3.x and 2.x (the version the bundler plugins run) make them:
 * debug-id injection and artifact-bundle upload of a real esbuild build, the release commands, and
 * the chunk and assemble endpoints fed by hand with what sentry-cli never sends (bad chunks, zip
 * bombs, broken manifests), which must be refused without leaving half a bundle behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { startTestApp, TestApp } from './helpers/app';
import {
  artifactBundle,
  BundleFile,
  buildApp,
  CliResult,
  CliVersion,
  injectedDebugId,
  runSentryCli,
  sha1,
  storedEntry,
  zip,
} from './helpers/sourcemap-app';

interface ListedFile {
  path: string;
  url: string;
  type: string;
  debug_id: string | null;
  source_map: string | null;
  size: number;
}

interface ListedBundle {
  id: number | string;
  checksum: string;
  bundle_debug_id: string | null;
  release: string | null;
  dist: string | null;
  file_count: number;
  size: number;
  created_at: string;
  last_used_at: string | null;
  files: ListedFile[];
}

interface Project {
  id: number;
  slug: string;
}

interface AssembleAnswer {
  state: string;
  missingChunks: string[];
  detail?: string | null;
}

const CHUNK_SIZE = 8 * 1024 * 1024;
const ASSEMBLE = '/api/0/organizations/default/artifactbundle/assemble/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What sentry-cli prints for a fatal error: `error: …` and its causes, up to the backtrace. */
function errorMessage(output: string): string {
  const start = output.search(/^error: /m);
  if (start < 0) return '';
  const end = output.indexOf('Stack backtrace:', start);
  return output.slice(start, end < 0 ? undefined : end).trim();
}

/** A table row of `sentry-cli releases list|info` whose first cell (after `skip` cells) is `value`. */
function tableRow(value: string, skip = 0): RegExp {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\|${'[^|\\n]*\\|'.repeat(skip)} ${escaped} +\\|`, 'm');
}

/** A minified file and its source map, made unique by `tag` so that no two tests share a chunk. */
function validFiles(tag: string, debugId?: string): BundleFile[] {
  const headers = debugId ? { 'debug-id': debugId } : undefined;
  return [
    {
      type: 'minified_source',
      url: `~/${tag}.min.js`,
      headers: { ...headers, sourcemap: `${tag}.min.js.map` },
      data: `function a(){throw new Error(${JSON.stringify(tag)})}a();\n//# sourceMappingURL=${tag}.min.js.map\n`,
    },
    {
      type: 'source_map',
      url: `~/${tag}.min.js.map`,
      headers,
      data: JSON.stringify({
        version: 3,
        file: `${tag}.min.js`,
        sources: [`${tag}.ts`],
        sourcesContent: [`function fail(): never { throw new Error(${JSON.stringify(tag)}); }\nfail();\n`],
        names: ['fail'],
        mappings: 'AAAA,SAASA',
      }),
    },
  ];
}

function uniqueTag(name: string): string {
  return `${name}-${randomBytes(4).toString('hex')}`;
}

describe('source map uploads (sentry-cli and the artifact bundle API)', () => {
  let t: TestApp;
  let token: string;
  let work: string;
  let chunkPath: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'sourcemap-e2e-'));
    t = await startTestApp();
    // sentry-cli gets an API token of its own, as a user would create one.
    const created = await t.api().post('/api/tokens').send({ description: 'cli' }).expect(201);
    token = created.body.token;
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    const options = await t.api().get('/api/0/organizations/default/chunk-upload/').expect(200);
    const target = new URL(options.body.url, t.url);
    chunkPath = `${target.pathname}${target.search}`;
  });

  afterAll(async () => {
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function newProject(name: string): Promise<Project> {
    const res = await t.api().post('/api/projects').send({ name }).expect(201);
    return { id: res.body.id, slug: res.body.slug };
  }

  function cli(version: CliVersion, args: string[], project: string): Promise<CliResult> {
    return runSentryCli(version, args, { url: t.url, token, project, home: work });
  }

  async function bundles(projectId: number): Promise<ListedBundle[]> {
    const res = await t.api().get(`/api/projects/${projectId}/artifact-bundles`).expect(200);
    expect(res.body.next_cursor).toBeNull();
    return res.body.data;
  }

  /** One chunk POST as sentry-cli sends it: gzip-compressed under `file_gzip`, or raw under `file`. */
  async function uploadChunks(chunks: Buffer[], field: 'file' | 'file_gzip' = 'file_gzip'): Promise<void> {
    let req = t.api().post(chunkPath);
    for (const chunk of chunks)
      req = req.attach(field, field === 'file_gzip' ? gzipSync(chunk) : chunk, {
        filename: sha1(chunk),
        contentType: 'application/octet-stream',
      });
    await req.expect(200);
  }

  async function assemble(body: Record<string, unknown>): Promise<AssembleAnswer> {
    const res = await t.api().post(ASSEMBLE).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
    return res.body;
  }

  /** Uploads a one-chunk bundle and assembles it for `project`. */
  async function uploadBundle(
    bundle: Buffer,
    project: Project,
    extra: Record<string, unknown> = {},
  ): Promise<AssembleAnswer> {
    await uploadChunks([bundle]);
    const checksum = sha1(bundle);
    return assemble({ checksum, chunks: [checksum], projects: [project.slug], ...extra });
  }

  describe.each<CliVersion>(['3.x', '2.x'])('sentry-cli %s', (version) => {
    it('injects debug ids, uploads the bundle, and on a second run finds nothing to upload', async () => {
      const project = await newProject(`Inject Upload ${version}`);
      const app = await buildApp(join(work, `app-${version}`));

      const inject = await cli(version, ['sourcemaps', 'inject', app.dist], project.slug);
      expect(inject).toMatchObject({ code: 0 });
      const debugId = await injectedDebugId(app.map);
      expect(debugId).toMatch(UUID);
      expect(await readFile(app.js, 'utf8')).toContain(`//# debugId=${debugId}`);

      const before = Date.now();
      const upload = await cli(version, ['sourcemaps', 'upload', app.dist], project.slug);
      expect(upload).toMatchObject({ code: 0 });
      expect(upload.output).toContain('Uploaded files to Sentry');
      expect(upload.output).toContain('Upload type: artifact bundle');
      // Assembly is synchronous: the call after the chunk upload already answers `ok`.
      expect(upload.output).toContain('File processing complete');
      const bundleDebugId = /Bundle ID: ([0-9a-f-]{36})/.exec(upload.output)?.[1];
      expect(bundleDebugId).toMatch(UUID);

      const listed = await bundles(project.id);
      expect(listed).toHaveLength(1);
      const [bundle] = listed;
      expect(bundle).toMatchObject({
        checksum: expect.stringMatching(/^[0-9a-f]{40}$/),
        bundle_debug_id: bundleDebugId,
        release: null,
        dist: null,
        file_count: 2,
        last_used_at: null,
      });
      expect(bundle.size).toBeGreaterThan(0);
      expect(Date.parse(bundle.created_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(bundle.created_at)).toBeLessThanOrEqual(Date.now() + 1000);

      const byUrl = new Map(bundle.files.map((file) => [file.url, file]));
      expect([...byUrl.keys()].sort()).toEqual(['~/main.js', '~/main.js.map']);
      expect(byUrl.get('~/main.js')).toMatchObject({
        type: 'minified_source',
        debug_id: debugId,
        source_map: expect.stringMatching(/(^|\/)main\.js\.map$/),
        // sentry-cli uploads the injected file as it is on disk (only the map is rewritten).
        size: (await stat(app.js)).size,
      });
      expect(byUrl.get('~/main.js.map')).toMatchObject({ type: 'source_map', debug_id: debugId });
      expect(byUrl.get('~/main.js.map')?.size).toBeGreaterThan(500);

      const again = await cli(version, ['sourcemaps', 'upload', app.dist], project.slug);
      expect(again).toMatchObject({ code: 0 });
      expect(again.output).toContain('Nothing to upload, all files are on the server');
      expect(again.output).not.toContain('Uploaded files to Sentry');
      expect(await bundles(project.id)).toEqual([bundle]);
    });

    it('creates, finalizes and deploys a release, lists it and shows it', async () => {
      const project = await newProject(`Releases ${version}`);
      // `+` is percent-encoded by sentry-cli in release paths: the server has to decode it.
      const release = `shop@2.0.0+cli${version[0]}`;
      const releasePath = `/api/projects/${project.id}/releases/${encodeURIComponent(release)}`;

      const created = await cli(version, ['releases', 'new', release], project.slug);
      expect(created).toMatchObject({ code: 0 });
      expect(created.output).toContain(`Created release ${release}`);
      expect((await t.api().get(releasePath).expect(200)).body).toMatchObject({
        version: release,
        date_released: null,
        deploys: [],
      });

      const finalizing = Date.now();
      const finalized = await cli(version, ['releases', 'finalize', release], project.slug);
      expect(finalized).toMatchObject({ code: 0 });
      expect(finalized.output).toContain(`Finalized release ${release}`);
      const afterFinalize = (await t.api().get(releasePath).expect(200)).body;
      expect(Date.parse(afterFinalize.date_released)).toBeGreaterThanOrEqual(finalizing - 1000);
      expect(Date.parse(afterFinalize.date_released)).toBeLessThanOrEqual(Date.now() + 1000);

      // Staging first and earlier, production later: newest first is production either way.
      const staging = await cli(
        version,
        [
          'releases',
          'deploys',
          release,
          'new',
          '-e',
          'staging',
          '--started',
          '1767225600',
          '--finished',
          '1767225660',
        ],
        project.slug,
      );
      expect(staging).toMatchObject({ code: 0 });
      expect(staging.output).toContain("Created new deploy unnamed for 'staging'");
      const production = await cli(
        version,
        [
          ...['releases', 'deploys', release, 'new', '-e', 'production', '-n', 'deploy 7'],
          ...[
            '-u',
            'https://ci.example.com/deploys/7',
            '--started',
            '1767229200',
            '--finished',
            '1767229500',
          ],
        ],
        project.slug,
      );
      expect(production).toMatchObject({ code: 0 });
      expect(production.output).toContain("Created new deploy deploy 7 for 'production'");

      const shown = (await t.api().get(releasePath).expect(200)).body;
      expect(shown).toMatchObject({ version: release, date_released: afterFinalize.date_released });
      const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());
      expect(
        (shown.deploys as Record<string, string | null>[]).map((deploy) => ({
          environment: deploy.environment,
          name: deploy.name,
          url: deploy.url,
          date_started: iso(deploy.date_started),
          date_finished: iso(deploy.date_finished),
        })),
      ).toEqual([
        {
          environment: 'production',
          name: 'deploy 7',
          url: 'https://ci.example.com/deploys/7',
          date_started: '2026-01-01T01:00:00.000Z',
          date_finished: '2026-01-01T01:05:00.000Z',
        },
        {
          environment: 'staging',
          name: null,
          url: null,
          date_started: '2026-01-01T00:00:00.000Z',
          date_finished: '2026-01-01T00:01:00.000Z',
        },
      ]);

      const list = await cli(version, ['releases', 'list'], project.slug);
      expect(list).toMatchObject({ code: 0 });
      expect(list.output).toMatch(tableRow(release, 1));

      const info = await cli(version, ['releases', 'info', release], project.slug);
      expect(info).toMatchObject({ code: 0 });
      expect(info.output).toMatch(tableRow(release));
    });

    it('fails with a readable message for a project that does not exist', async () => {
      const result = await cli(version, ['releases', 'new', 'shop@9.9.9'], 'no-such-project');
      expect(result.code).not.toBe(0);
      expect(errorMessage(result.output)).toMatch(/project/i);
    });

    it('`info` authenticates with the token and shows its scopes', async () => {
      const root = (await t.api().get('/api/0/').expect(200)).body;
      expect(root).toMatchObject({ user: null, auth: { scopes: expect.any(Array) } });
      expect(root.auth.scopes.length).toBeGreaterThan(0);
      const info = await cli(version, ['info'], 'irrelevant');
      expect(info).toMatchObject({ code: 0 });
      expect(info.output).toContain('Method: Auth Token');
      for (const scope of root.auth.scopes as string[]) expect(info.output).toContain(`- ${scope}`);
    });
  });

  it('sentry-cli 2.x uploads for a release and dist and waits for processing', async () => {
    const project = await newProject('Release Upload');
    const app = await buildApp(join(work, 'app-release'));
    expect(await cli('2.x', ['sourcemaps', 'inject', app.dist], project.slug)).toMatchObject({ code: 0 });
    const debugId = await injectedDebugId(app.map);

    const upload = await cli(
      '2.x',
      ['sourcemaps', 'upload', '--release', 'web@1.0.0', '--dist', 'd1', '--wait', app.dist],
      project.slug,
    );
    expect(upload).toMatchObject({ code: 0 });
    expect(upload.output).toContain('File processing complete');
    expect(upload.output).toContain('Release: web@1.0.0');
    expect(upload.output).toContain('Dist: d1');

    const listed = await bundles(project.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ release: 'web@1.0.0', dist: 'd1', file_count: 2 });
    expect(listed[0].files.map((file) => [file.url, file.debug_id]).sort()).toEqual([
      ['~/main.js', debugId],
      ['~/main.js.map', debugId],
    ]);
  });

  it('sentry-cli 2.x `releases files … upload-sourcemaps` uploads files without debug ids for the release', async () => {
    const project = await newProject('Release Files');
    const app = await buildApp(join(work, 'app-release-files'));
    const upload = await cli(
      '2.x',
      ['releases', 'files', 'web@4.0.0', 'upload-sourcemaps', app.dist],
      project.slug,
    );
    expect(upload).toMatchObject({ code: 0 });
    expect(upload.output).toContain('Release: web@4.0.0');
    const listed = await bundles(project.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ release: 'web@4.0.0', dist: null, file_count: 2 });
    expect(listed[0].files.map((file) => [file.url, file.debug_id]).sort()).toEqual([
      ['~/main.js', null],
      ['~/main.js.map', null],
    ]);
    const byRelease = await t
      .api()
      .get(`/api/projects/${project.id}/artifact-bundles?release=web%404.0.0`)
      .expect(200);
    expect(byRelease.body.data).toHaveLength(1);
    const other = await t
      .api()
      .get(`/api/projects/${project.id}/artifact-bundles?release=web%405.0.0`)
      .expect(200);
    expect(other.body.data).toEqual([]);
  });

  describe('chunk upload endpoint', () => {
    let project: Project;

    beforeAll(async () => {
      project = await newProject('Chunk Input');
    });

    /** Whether a chunk is stored, as the assemble pre-check tells sentry-cli. */
    async function stored(chunk: Buffer): Promise<boolean> {
      const checksum = sha1(chunk);
      const answer = await assemble({ checksum, chunks: [checksum], projects: [project.slug] });
      return !answer.missingChunks.includes(checksum);
    }

    it('describes itself as sentry-cli 2.x and 3.x need, for any organization slug', async () => {
      for (const org of ['default', 'acme']) {
        const res = await t.api().get(`/api/0/organizations/${org}/chunk-upload/`).expect(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({
          url: expect.any(String),
          chunkSize: CHUNK_SIZE,
          chunksPerRequest: expect.any(Number),
          maxRequestSize: expect.any(Number),
          maxFileSize: expect.any(Number),
          concurrency: expect.any(Number),
          hashAlgorithm: 'sha1',
          compression: expect.arrayContaining(['gzip']),
          accept: expect.arrayContaining(['release_files', 'artifact_bundles', 'artifact_bundles_v2']),
          maxWait: expect.any(Number),
        });
        expect(res.body.maxRequestSize).toBeGreaterThanOrEqual(CHUNK_SIZE);
        expect(res.body.chunksPerRequest).toBeGreaterThan(0);
      }
      await t.http().get('/api/0/organizations/default/chunk-upload/').expect(401);
    });

    it('refuses a part whose SHA-1 is not its name, and stores nothing of that request', async () => {
      const good = randomBytes(1024);
      const bad = randomBytes(1024);
      const claimed = sha1(randomBytes(16));
      const res = await t
        .api()
        .post(chunkPath)
        .attach('file_gzip', gzipSync(good), {
          filename: sha1(good),
          contentType: 'application/octet-stream',
        })
        .attach('file_gzip', gzipSync(bad), { filename: claimed, contentType: 'application/octet-stream' });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { error: expect.stringContaining(claimed) },
      });
      expect(await stored(good)).toBe(false);
      expect(await stored(bad)).toBe(false);
    });

    it('takes a chunk of exactly chunkSize and refuses a bigger one, raw or gzipped', async () => {
      const exact = randomBytes(CHUNK_SIZE);
      await uploadChunks([exact], 'file');
      expect(await stored(exact)).toBe(true);

      const raw = randomBytes(CHUNK_SIZE + 1);
      const rawRes = await t
        .api()
        .post(chunkPath)
        .attach('file', raw, { filename: sha1(raw), contentType: 'application/octet-stream' });
      expect({ status: rawRes.status, error: rawRes.body.error }).toEqual({
        status: 400,
        error: expect.any(String),
      });

      // Small on the wire, too big once inflated: the limit is on the chunk, not the request.
      const inflated = Buffer.concat([randomBytes(16), Buffer.alloc(CHUNK_SIZE + 1 - 16)]);
      const gzRes = await t
        .api()
        .post(chunkPath)
        .attach('file_gzip', gzipSync(inflated), {
          filename: sha1(inflated),
          contentType: 'application/octet-stream',
        });
      expect({ status: gzRes.status, error: gzRes.body.error }).toEqual({
        status: 400,
        error: expect.any(String),
      });

      expect(await stored(raw)).toBe(false);
      expect(await stored(inflated)).toBe(false);
    });

    it('refuses a body that is not multipart', async () => {
      const asJson = await t.api().post(chunkPath).send({ file: 'abc' });
      expect({ status: asJson.status, error: asJson.body.error }).toEqual({
        status: 400,
        error: expect.any(String),
      });
      const chunk = randomBytes(64);
      const asBytes = await t
        .api()
        .post(chunkPath)
        .set('Content-Type', 'application/octet-stream')
        .send(gzipSync(chunk));
      expect({ status: asBytes.status, error: asBytes.body.error }).toEqual({
        status: 400,
        error: expect.any(String),
      });
      expect(await stored(chunk)).toBe(false);
    });
  });

  describe('assemble endpoint', () => {
    it('reports missing chunks, assembles chunks in order once all are there, and stays ok', async () => {
      const project = await newProject('Assemble Flow');
      const tag = uniqueTag('flow');
      const debugId = '0b6f2c46-9c3c-4f37-9a1e-3e4c8d2f1a77';
      const bundleDebugId = 'c8a1e5f0-4d2b-4b8e-9f6a-2d7c3b1e0a55';
      const bundle = artifactBundle(validFiles(tag, debugId), { debug_id: bundleDebugId });
      // Two chunks of different sizes; reassembling them in any other order breaks the zip.
      const parts = [bundle.subarray(0, 100), bundle.subarray(100)];
      const request = { checksum: sha1(bundle), chunks: parts.map(sha1), projects: [project.slug] };

      const first = await assemble(request);
      expect(first.state).toBe('not_found');
      expect([...first.missingChunks].sort()).toEqual(parts.map(sha1).sort());

      await uploadChunks([parts[1]], 'file');
      expect(await assemble(request)).toMatchObject({ state: 'not_found', missingChunks: [sha1(parts[0])] });
      expect(await bundles(project.id)).toEqual([]);

      await uploadChunks([parts[0]], 'file_gzip');
      expect(await assemble(request)).toMatchObject({ state: 'ok', missingChunks: [] });
      const listed = await bundles(project.id);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({
        checksum: sha1(bundle),
        bundle_debug_id: bundleDebugId,
        release: null,
        dist: null,
        file_count: 2,
      });
      expect(listed[0].files.map((file) => [file.url, file.type, file.debug_id]).sort()).toEqual([
        [`~/${tag}.min.js`, 'minified_source', debugId],
        [`~/${tag}.min.js.map`, 'source_map', debugId],
      ]);

      expect(await assemble(request)).toMatchObject({ state: 'ok', missingChunks: [] });
      expect(await bundles(project.id)).toEqual(listed);
    });

    it('stores the release and dist it is given, and takes the release "undefined" as none', async () => {
      const project = await newProject('Assemble Release');
      const tagged = artifactBundle(validFiles(uniqueTag('release')), { release: 'web@3.1.0', dist: 'eu' });
      expect(await uploadBundle(tagged, project, { version: 'web@3.1.0', dist: 'eu' })).toMatchObject({
        state: 'ok',
      });

      // What the bundler plugins send when they know no release; here with the project named by id.
      const plugin = artifactBundle(validFiles(uniqueTag('plugin')));
      await uploadChunks([plugin]);
      const answer = await assemble({
        checksum: sha1(plugin),
        chunks: [sha1(plugin)],
        projects: [String(project.id)],
        version: 'undefined',
      });
      expect(answer).toMatchObject({ state: 'ok', missingChunks: [] });

      const listed = await bundles(project.id);
      expect(listed.map((bundle) => [bundle.checksum, bundle.release, bundle.dist])).toEqual([
        [sha1(plugin), null, null],
        [sha1(tagged), 'web@3.1.0', 'eu'],
      ]);
    });

    describe('refuses a bad bundle with an error state and stores nothing of it', () => {
      let project: Project;
      let zeros: { stored: Buffer; crc: number };
      const BOMB_SIZE = 300 * 1024 * 1024;

      beforeAll(async () => {
        project = await newProject('Bad Bundles');
        // 300 MiB of zeros deflate to about 300 KB: one chunk on the wire.
        const inflated = Buffer.alloc(BOMB_SIZE);
        zeros = { stored: deflateRawSync(inflated, { level: 9 }), crc: crc32(inflated) };
      });

      /** Every bad bundle starts with a good file, so that storing file by file would leave it behind. */
      function withGoodFile(files: BundleFile[]): BundleFile[] {
        return [...validFiles(uniqueTag('good')), ...files];
      }

      const cases: [string, () => Buffer, RegExp][] = [
        ['that is not a zip', () => Buffer.from(`not a zip archive ${uniqueTag('x')}`), /zip/i],
        [
          'with an entry that inflates beyond the limits (sizes declared honestly)',
          () =>
            artifactBundle(
              withGoodFile([
                {
                  type: 'minified_source',
                  url: '~/bomb.js',
                  data: { stored: zeros.stored, method: 8, size: BOMB_SIZE, crc: zeros.crc },
                },
              ]),
            ),
          /bomb\.js[\s\S]*(large|limit|exceed|more than)/i,
        ],
        [
          'with an entry that inflates beyond the limits (declaring 1 KiB)',
          () =>
            artifactBundle(
              withGoodFile([
                {
                  type: 'minified_source',
                  url: '~/bomb.js',
                  data: { stored: zeros.stored, method: 8, size: 1024, crc: zeros.crc },
                },
              ]),
            ),
          /bomb\.js/,
        ],
        [
          'without a manifest.json',
          () => {
            const [file] = validFiles(uniqueTag('nomanifest'));
            return zip([storedEntry('files/_/_/app.min.js', file.data as string)]);
          },
          /manifest/i,
        ],
        [
          'whose manifest names a file the zip lacks',
          () => artifactBundle(withGoodFile([{ type: 'minified_source', url: '~/missing-file.js' }])),
          /missing-file\.js/,
        ],
        [
          'with a source map that is not JSON',
          () =>
            artifactBundle(
              withGoodFile([
                { type: 'source_map', url: '~/broken.js.map', data: '{"version":3,"mappings":' },
              ]),
            ),
          /broken\.js\.map[\s\S]*JSON/,
        ],
        [
          'with a source map without mappings',
          () =>
            artifactBundle(
              withGoodFile([
                {
                  type: 'source_map',
                  url: '~/nomappings.js.map',
                  data: JSON.stringify({ version: 3, sources: ['a.ts'], names: [] }),
                },
              ]),
            ),
          /nomappings\.js\.map[\s\S]*mappings/,
        ],
        [
          'with a source map whose mappings are not a string',
          () =>
            artifactBundle(
              withGoodFile([
                {
                  type: 'source_map',
                  url: '~/numeric.js.map',
                  data: JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 42 }),
                },
              ]),
            ),
          /numeric\.js\.map[\s\S]*mappings/,
        ],
        [
          'with a source map whose mappings are not base64 VLQ',
          () =>
            artifactBundle(
              withGoodFile([
                {
                  type: 'source_map',
                  url: '~/vlq.js.map',
                  data: JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA;%%%!' }),
                },
              ]),
            ),
          /vlq\.js\.map[\s\S]*mappings/,
        ],
      ];

      it.each(cases)('a bundle %s', async (_name, make, detail) => {
        const bundle = make();
        expect(bundle.length).toBeLessThan(CHUNK_SIZE);
        const answer = await uploadBundle(bundle, project);
        expect(answer).toEqual({ state: 'error', missingChunks: [], detail: expect.stringMatching(detail) });
        expect(await bundles(project.id)).toEqual([]);
      });
    });

    describe('answers 400 to a malformed request, before storing anything', () => {
      let project: Project;
      let checksum: string;

      beforeAll(async () => {
        project = await newProject('Malformed Assemble');
        // All chunks are present, so a lenient server would assemble: the refusal must come first.
        const bundle = artifactBundle(validFiles(uniqueTag('malformed')));
        await uploadChunks([bundle]);
        checksum = sha1(bundle);
      });

      const cases: [string, (checksum: string, slug: string) => Record<string, unknown>, RegExp][] = [
        [
          'a checksum that is not 40 hex',
          (c, slug) => ({ checksum: 'abc123', chunks: [c], projects: [slug] }),
          /./,
        ],
        [
          'a chunk that is not 40 hex',
          (c, slug) => ({ checksum: c, chunks: ['not-a-sha1'], projects: [slug] }),
          /./,
        ],
        [
          'an unknown project slug',
          (c) => ({ checksum: c, chunks: [c], projects: ['no-such-project'] }),
          /project/i,
        ],
        ['an unknown project id', (c) => ({ checksum: c, chunks: [c], projects: ['987654321'] }), /project/i],
        [
          'a dist without a version',
          (c, slug) => ({ checksum: c, chunks: [c], projects: [slug], dist: 'd1' }),
          /release|version/i,
        ],
      ];

      it.each(cases)('%s', async (_name, body, message) => {
        const res = await t.api().post(ASSEMBLE).send(body(checksum, project.slug));
        expect({ status: res.status, body: res.body }).toEqual({
          status: 400,
          body: { error: expect.stringMatching(message) },
        });
        expect(await bundles(project.id)).toEqual([]);
      });

      it('refuses an unauthenticated request', async () => {
        await t
          .http()
          .post(ASSEMBLE)
          .send({ checksum, chunks: [checksum], projects: [project.slug] })
          .expect(401);
        expect(await bundles(project.id)).toEqual([]);
      });
    });
  });

  describe('listing and deleting bundles', () => {
    it('lists newest first and deletes one bundle at a time, only in its own project', async () => {
      const project = await newProject('Bundle List');
      const other = await newProject('Bundle List Other');
      const first = artifactBundle(validFiles(uniqueTag('first')));
      const second = artifactBundle(validFiles(uniqueTag('second')));
      expect(await uploadBundle(first, project)).toMatchObject({ state: 'ok' });
      expect(await uploadBundle(second, project)).toMatchObject({ state: 'ok' });

      const listed = await bundles(project.id);
      expect(listed.map((bundle) => bundle.checksum)).toEqual([sha1(second), sha1(first)]);
      expect(await bundles(other.id)).toEqual([]);
      const [newer, older] = listed;

      await t.api().delete(`/api/projects/${other.id}/artifact-bundles/${older.id}`).expect(404);
      await t.http().delete(`/api/projects/${project.id}/artifact-bundles/${older.id}`).expect(401);
      await t.http().get(`/api/projects/${project.id}/artifact-bundles`).expect(401);
      expect(await bundles(project.id)).toEqual(listed);

      await t.api().delete(`/api/projects/${project.id}/artifact-bundles/${older.id}`).expect(204);
      await t.api().delete(`/api/projects/${project.id}/artifact-bundles/${older.id}`).expect(404);
      expect(await bundles(project.id)).toEqual([newer]);

      const unknown = await t.api().delete(`/api/projects/${project.id}/artifact-bundles/987654321`);
      expect({ status: unknown.status, error: unknown.body.error }).toEqual({
        status: 404,
        error: expect.any(String),
      });
      await t.api().get('/api/projects/987654321/artifact-bundles').expect(404);
    });

    it('assembles a deleted bundle again when it is uploaded again', async () => {
      const project = await newProject('Bundle Reupload');
      const bundle = artifactBundle(validFiles(uniqueTag('again')));
      expect(await uploadBundle(bundle, project)).toMatchObject({ state: 'ok' });
      const [listed] = await bundles(project.id);
      await t.api().delete(`/api/projects/${project.id}/artifact-bundles/${listed.id}`).expect(204);

      // sentry-cli's pre-check: the chunks are still there, so it sends none and only asks to assemble.
      const checksum = sha1(bundle);
      const answer = await assemble({ checksum, chunks: [checksum], projects: [project.slug] });
      expect(answer).toMatchObject({ state: 'ok', missingChunks: [] });
      const again = await bundles(project.id);
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ checksum, file_count: 2 });
      expect(again[0].id).not.toEqual(listed.id);
    });
  });

  describe('what this server does not serve', () => {
    it('answers 501 naming what is served, which sentry-cli prints', async () => {
      const res = await t.api().get('/api/0/organizations/default/monitors/').expect(501);
      expect(res.body.error).toMatch(
        /^GET \/api\/0\/organizations\/default\/monitors\/ is not part of this server's Sentry-compatible API/,
      );
      const project = await newProject('Unsupported Commands');
      for (const version of ['3.x', '2.x'] as const) {
        for (const args of [
          ['monitors', 'list'],
          ['repos', 'list'],
        ]) {
          const run = await cli(version, args, project.slug);
          expect({ version, args, code: run.code }).toEqual({ version, args, code: 1 });
          expect(run.output).toContain("is not part of this server's Sentry-compatible API");
        }
      }
    });
  });
});
