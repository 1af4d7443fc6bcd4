/**
 * Source maps in the dashboard, in Chromium against the real server: an event resolved through a map
 * sentry-cli uploaded shows its original frames with a switch to the minified ones; an event whose
 * map is missing says why; the project's Source maps page lists the upload and deletes it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  PageProblems,
  screenshot,
  expectNoPageProblems,
  openSignedIn,
  openPhonePage,
  SCREENSHOTS,
  settled,
  settledCount,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { buildApp, injectedDebugId, runSentryCli } from './helpers/sourcemap-app';

const EMAIL = 'maps@example.com';
const PASSWORD = 'maps-secret';
const APP_URL = 'https://shop.example.com/assets/main.js';

describe('source maps in the dashboard (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let project: { id: number; slug: string; client_key: string };
  let dir: string;
  let resolvedIssue: number;
  let missingIssue: number;

  /** A browser event thrown where the bundle throws, as @sentry/browser sends it. */
  async function send(
    debugId: string,
    line: number,
    column: number,
    type: string,
    release?: string,
    frame: Record<string, unknown> = {},
  ): Promise<{ issueId: number; eventId: string }> {
    const eventId = randomUUID().replace(/-/g, '');
    await t
      .http()
      .post(`/api/${project.id}/store/?sentry_key=${project.client_key.replace(/-/g, '')}`)
      .send({
        event_id: eventId,
        platform: 'javascript',
        ...(release ? { release } : {}),
        level: 'error',
        exception: {
          values: [
            {
              type,
              value: 'Cart is empty',
              stacktrace: {
                frames: [
                  {
                    abs_path: APP_URL,
                    filename: APP_URL,
                    function: 'n',
                    lineno: line,
                    colno: column,
                    in_app: true,
                    ...frame,
                  },
                ],
              },
            },
          ],
        },
        debug_meta: { images: [{ type: 'sourcemap', code_file: APP_URL, debug_id: debugId }] },
      })
      .expect(200);
    const stored = await eventually(async () => {
      const response = await t.api().get(`/api/events/${eventId}`);
      return response.status === 200 ? (response.body as { issue_id: number }) : undefined;
    }, 20_000);
    return { issueId: stored.issue_id, eventId };
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Map Shop' }).expect(201)).body;
    dir = mkdtempSync(join(tmpdir(), 'dashboard-maps-'));
    const app = await buildApp(dir);
    const cli = { url: t.url, token: t.token, project: project.slug, home: dir };
    expect((await runSentryCli('3.x', ['sourcemaps', 'inject', app.dist], cli)).code).toBe(0);
    expect(
      (await runSentryCli('3.x', ['sourcemaps', 'upload', '--release', 'shop@1.0.0', app.dist], cli)).code,
    ).toBe(0);
    const debugId = await injectedDebugId(app.map);
    const lines = readFileSync(app.js, 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('Cart is empty'));
    const column = lines[line].lastIndexOf('throw', lines[line].indexOf('Cart is empty')) + 1;
    resolvedIssue = (await send(debugId, line + 1, column, 'Error')).issueId;
    missingIssue = (await send(randomUUID(), line + 1, column, 'MissingMapError')).issueId;

    ({ browser, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => expectNoPageProblems(problems));

  it('shows the original frame with its source, and the minified one on request', async () => {
    await page.goto(`/issues/${resolvedIssue}`);
    const frames = page.locator('.frames');
    await frames.getByText('src/cart.ts').first().waitFor();
    await frames.getByText('checkout').first().waitFor();
    await page
      .locator('.context tr.current')
      .filter({ hasText: "throw new Error('Cart is empty')" })
      .waitFor();
    await screenshot(page, 'sourcemaps-original-frames');
    await page.getByRole('group', { name: 'Frames' }).getByRole('button', { name: 'Minified' }).click();
    await frames.getByText(APP_URL).first().waitFor();
    await settledCount(frames.getByText('src/cart.ts'), 0);
    await page.getByRole('group', { name: 'Frames' }).getByRole('button', { name: 'Original' }).click();
    await frames.getByText('src/cart.ts').first().waitFor();
  });

  it('says why an event kept its minified frames', async () => {
    await page.goto(`/issues/${missingIssue}`);
    const section = page.getByRole('region', { name: 'Source code not shown' });
    await section
      .getByText('No source map was found for /assets/main.js, so its frames show the minified code.', {
        exact: false,
      })
      .waitFor();
    await settled(
      () => section.getByText('js_no_source_map').isVisible(),
      (value) => expect(value).toBe(false),
    );
    await section.getByText('Technical details').click();
    await section.getByText(/js_no_source_map: no uploaded source map has the debug id/).waitFor();
    await screenshot(page, 'sourcemaps-processing-error');
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'sourcemaps-processing-error-view.png') });
    const { phone, mobile } = await openPhonePage(browser, page.context(), t.url, problems);
    await mobile.goto(`/issues/${missingIssue}`);
    const onPhone = mobile.getByRole('region', { name: 'Source code not shown' });
    await onPhone.getByText('Technical details').click();
    await onPhone.scrollIntoViewIfNeeded();
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await mobile.screenshot({ path: join(SCREENSHOTS, 'sourcemaps-processing-error-phone-view.png') });
    await phone.close();
    await section.getByRole('link', { name: "See this project's source maps" }).click();
    await page.waitForURL(new RegExp(`/projects/${project.id}/source-maps$`));
  });

  it('says nothing about a missing source map when the frames have their source lines', async () => {
    const { issueId, eventId } = await send(randomUUID(), 3, 5, 'SourceLinesError', undefined, {
      context_line: "  throw new Error('Cart is empty');",
    });
    const stored = (await t.api().get(`/api/events/${eventId}`).expect(200)).body as { errors?: unknown[] };
    expect(stored.errors?.length ?? 0).toBeGreaterThan(0);
    await page.goto(`/issues/${issueId}`);
    await page
      .locator('.context tr.current')
      .filter({ hasText: "throw new Error('Cart is empty')" })
      .waitFor();
    await settledCount(page.getByRole('region', { name: 'Source code not shown' }), 0);
  });

  it('gives both reasons when neither the debug id nor the release finds a map', async () => {
    const unknownId = randomUUID();
    const { eventId } = await send(unknownId, 1, 1, 'NoMapAtAllError', 'shop@9.9.9');
    const event = (await t.api().get(`/api/events/${eventId}`).expect(200)).body as { errors: unknown[] };
    expect(event.errors).toEqual([
      {
        type: 'js_no_source_map',
        url: APP_URL,
        debug_id: unknownId,
        detail: `no uploaded source map has the debug id ${unknownId}, and no file uploaded for release shop@9.9.9 is at ~/assets/main.js`,
      },
    ]);
  });

  it("lists the project's uploads with their files and debug ids, and deletes one", async () => {
    await page.goto(`/projects/${project.id}/source-maps`);
    const upload = page.getByRole('region', { name: /shop@1\.0\.0/ });
    await upload.getByText('~/main.js', { exact: true }).waitFor();
    await upload.getByText('~/main.js.map', { exact: true }).waitFor();
    const debugId = await injectedDebugId(join(dir, 'dist', 'main.js.map'));
    await settledCount(upload.getByText(debugId), 2);
    await page.getByLabel('Release').selectOption('shop@1.0.0');
    await upload.waitFor();
    await screenshot(page, 'sourcemaps-page');
    await upload.getByRole('button', { name: 'Delete', exact: true }).click();
    await upload.getByRole('button', { name: 'Delete upload' }).click();
    await page.getByText('Nothing was uploaded for shop@1.0.0.').waitFor();
    const left = (await t.api().get(`/api/projects/${project.id}/artifact-bundles`).expect(200)).body.data;
    expect(left).toEqual([]);
  });
});
