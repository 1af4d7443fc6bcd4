/**
 * Inbound filters end to end: each filter turned on through the API, events with real user agents
 * sent through the real ingest, answered 200 and never stored when filtered, counted as `filtered`
 * outcomes under the filter's name (folded into PostgreSQL, shown by the API and /metrics); the
 * API's refusals of bad settings, and the audit entries. Real HTTP, PostgreSQL, Redis and the real
 * @sentry/node SDK.
 */
import { defaultStackParser, makeNodeTransport, NodeClient } from '@sentry/node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { USER_AGENTS as UA } from '../src/privacy/filters/user-agents.fixtures';
import { startTestApp, TestApp } from './helpers/app';
import { backlogDrained, storedEvent } from './helpers/queues';

interface Project {
  id: number;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

async function createProject(t: TestApp): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `filters-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}

/** An event as the browser SDK sends it, from a page of shop.example.com in the given browser. */
function browserEvent(eventId: string, userAgent: string, extra: Record<string, unknown> = {}) {
  return {
    event_id: hex(eventId),
    platform: 'javascript',
    level: 'error',
    request: { url: 'https://shop.example.com/cart', headers: { 'User-Agent': userAgent } },
    exception: {
      values: [
        {
          type: 'TypeError',
          value: `cannot read properties of undefined (${eventId})`,
          stacktrace: {
            frames: [{ abs_path: 'https://shop.example.com/assets/app.js', lineno: 1, colno: 10 }],
          },
        },
      ],
    },
    ...extra,
  };
}

function sendEvent(t: TestApp, project: Project, event: object, forwardedFor?: string) {
  const body = [
    JSON.stringify({ event_id: (event as { event_id: string }).event_id }),
    '{"type":"event"}',
    JSON.stringify(event),
  ].join('\n');
  const post = t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain');
  if (forwardedFor) post.set('X-Forwarded-For', forwardedFor);
  return post.send(body);
}

async function filteredTotals(t: TestApp, project: Project): Promise<Record<string, number>> {
  await t.app.get(OutcomeFolder).fold();
  const view = (await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200)).body as {
    totals: { outcome: string; category: string; reason: string; quantity: number }[];
  };
  const totals: Record<string, number> = {};
  for (const total of view.totals) {
    if (total.outcome === 'filtered') totals[`${total.category}:${total.reason}`] = total.quantity;
  }
  return totals;
}

describe('inbound filters', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has every filter off for a new project', async () => {
    const project = await createProject(t);
    const view = (await t.api().get(`/api/projects/${project.id}/inbound-filters`).expect(200)).body;
    expect(view).toMatchObject({
      project_id: project.id,
      browser_extensions: false,
      localhost: false,
      web_crawlers: false,
      legacy_browsers: [],
      releases: [],
      error_messages: [],
      client_ips: [],
      updated_at: null,
    });
    expect(view.legacy_browser_choices).toContain('ie_pre_9');
    expect(view.filtered).toHaveLength(7);
    // Nothing is filtered while the filters are off: a crawler's event is stored.
    const eventId = randomUUID();
    await sendEvent(t, project, browserEvent(eventId, UA.googlebot)).expect(200);
    await storedEvent(t, eventId, 30_000);
  }, 60_000);

  it('drops what each filter catches, answers 200, stores the rest, and counts each under its name', async () => {
    const project = await createProject(t);
    const patched = await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({
        browser_extensions: true,
        localhost: true,
        web_crawlers: true,
        legacy_browsers: ['ie_pre_9', 'ie9', 'ie10', 'ie11', 'android_pre_4', 'safari_pre_6', 'opera_pre_15'],
        releases: ['*-beta*'],
        error_messages: ['*ResizeObserver loop*'],
        client_ips: ['203.0.113.0/24', '2001:db8::/32'],
      })
      .expect(200);
    expect(patched.body.updated_at).not.toBeNull();

    const dropped: [string, object, string?][] = [
      ['googlebot', browserEvent(randomUUID(), UA.googlebot)],
      ['bingbot', browserEvent(randomUUID(), UA.bingbot)],
      ['ie8', browserEvent(randomUUID(), UA.ie8)],
      ['ie11', browserEvent(randomUUID(), UA.ie11)],
      ['android 2', browserEvent(randomUUID(), UA.android2)],
      [
        'extension',
        browserEvent(randomUUID(), UA.chrome120, {
          exception: {
            values: [
              {
                type: 'Error',
                value: 'x',
                stacktrace: { frames: [{ abs_path: 'chrome-extension://abcdef/content.js' }] },
              },
            ],
          },
        }),
      ],
      [
        'localhost',
        browserEvent(randomUUID(), UA.firefox121, {
          request: { url: 'http://localhost:5173/', headers: { 'User-Agent': UA.firefox121 } },
        }),
      ],
      ['beta release', browserEvent(randomUUID(), UA.safari17, { release: 'shop@2.0.0-beta.1' })],
      [
        'message',
        browserEvent(randomUUID(), UA.chrome120, {
          exception: { values: [{ type: 'Error', value: 'ResizeObserver loop limit exceeded' }] },
        }),
      ],
      ['client ip', browserEvent(randomUUID(), UA.chrome120), '203.0.113.77'],
      ['client ipv6', browserEvent(randomUUID(), UA.chrome120), '2001:db8:5::1'],
    ];
    for (const [, event, forwardedFor] of dropped) {
      const response = await sendEvent(t, project, event, forwardedFor).expect(200);
      expect(response.body).toEqual({ id: (event as { event_id: string }).event_id });
    }
    const keptIds = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await sendEvent(
      t,
      project,
      browserEvent(keptIds[0], UA.chrome120, { release: 'shop@2.0.0' }),
      '198.51.100.4',
    ).expect(200);
    await sendEvent(t, project, browserEvent(keptIds[1], UA.iphoneSafari)).expect(200);
    await sendEvent(t, project, browserEvent(keptIds[2], UA.edge120)).expect(200);
    await sendEvent(t, project, browserEvent(keptIds[3], UA.cubotPhone)).expect(200);
    for (const id of keptIds) await storedEvent(t, id, 30_000);
    await backlogDrained(t);
    const [{ count }] = await db.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM events WHERE project_id = $1',
      [project.id],
    );
    expect(count).toBe(keptIds.length);

    expect(await filteredTotals(t, project)).toEqual({
      'error:web_crawlers': 2,
      'error:legacy_browsers': 3,
      'error:browser_extensions': 1,
      'error:localhost': 1,
      'error:release_version': 1,
      'error:error_message': 1,
      'error:ip_address': 2,
    });
    const view = (await t.api().get(`/api/projects/${project.id}/inbound-filters`).expect(200)).body;
    expect(view.filtered).toContainEqual({ reason: 'legacy_browsers', last_24h: 3, last_30d: 3 });
    expect(view.filtered).toContainEqual({ reason: 'ip_address', last_24h: 2, last_30d: 2 });
    const metrics = (await t.http().get('/metrics').expect(200)).text;
    expect(metrics).toMatch(
      /^error_tracker_outcomes_total\{outcome="filtered",category="error",reason="web_crawlers"\} \d+$/m,
    );
    expect(metrics).toMatch(/^error_tracker_ingest_events_filtered_total [1-9]\d*$/m);
  }, 90_000);

  it('filters the legacy store endpoint and the real @sentry/node SDK, which is answered 200 and does not retry', async () => {
    const project = await createProject(t);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ releases: ['backend@0.*'] })
      .expect(200);
    const storeId = randomUUID();
    await t
      .http()
      .post(`/api/${project.id}/store/?sentry_key=${hex(project.client_key)}`)
      .send({ event_id: hex(storeId), message: 'old client', release: 'backend@0.9' })
      .expect(200, { id: hex(storeId) });

    const dsn = `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`;
    const sent: number[] = [];
    const client = (release: string) =>
      new NodeClient({
        dsn,
        release,
        integrations: [],
        stackParser: defaultStackParser,
        transport: (options) => {
          const transport = makeNodeTransport(options);
          return {
            ...transport,
            send: async (request) => {
              const result = await transport.send(request);
              sent.push(result.statusCode ?? 0);
              return result;
            },
          };
        },
      });
    const old = client('backend@0.3.1');
    const filteredId = old.captureException(new Error('from an old release'));
    await old.flush(10_000);
    const current = client('backend@1.0.0');
    const keptId = current.captureException(new Error('from the current release'));
    await current.flush(10_000);
    expect(sent).toEqual([200, 200]);
    await storedEvent(t, keptId, 30_000);
    expect((await t.api().get(`/api/events/${filteredId}`)).status).toBe(404);
    expect(await filteredTotals(t, project)).toEqual({ 'error:release_version': 2 });
  }, 60_000);

  it("deletes a filtered event's attachments and counts them as filtered too", async () => {
    const project = await createProject(t);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ web_crawlers: true })
      .expect(200);
    const eventId = randomUUID();
    const event = browserEvent(eventId, UA.googlebot);
    const file = 'crawler screenshot bytes';
    const body = [
      JSON.stringify({ event_id: hex(eventId) }),
      '{"type":"event"}',
      JSON.stringify(event),
      JSON.stringify({ type: 'attachment', length: Buffer.byteLength(file), filename: 'screen.txt' }),
      file,
    ].join('\n');
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send(body)
      .expect(200, { id: hex(eventId) });
    const [{ count }] = await db.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM attachments WHERE project_id = $1',
      [project.id],
    );
    expect(count).toBe(0);
    expect(await filteredTotals(t, project)).toEqual({
      'error:web_crawlers': 1,
      'attachment:web_crawlers': 1,
    });
  });

  it('refuses settings that do not parse, with the reason, and changes nothing', async () => {
    const project = await createProject(t);
    const refusals: [object, RegExp][] = [
      [{ client_ips: ['10.0.0.0/33'] }, /client_ips: "10\.0\.0\.0\/33" has a prefix length outside 0 to 32/],
      [{ client_ips: ['not-an-ip'] }, /client_ips: "not-an-ip" is not an IP address or CIDR range/],
      [{ releases: ['1.0.\\'] }, /releases: .*ends with a lone/],
      [{ error_messages: [''] }, /error_messages: a pattern may not be empty/],
      [{ error_messages: ['x'.repeat(201)] }, /at most 200 characters/],
      [{ releases: Array.from({ length: 101 }, (_, i) => `r${i}`) }, /releases may hold at most 100 entries/],
      [{ legacy_browsers: ['netscape4'] }, /legacy_browsers: "netscape4" is not one of ie_pre_9/],
      [{ web_crawlers: 'yes' }, /web_crawlers must be a boolean/],
      [{ client_ips: '10.0.0.0/8' }, /client_ips must be an array/],
    ];
    for (const [body, reason] of refusals) {
      const response = await t
        .api()
        .patch(`/api/projects/${project.id}/inbound-filters`)
        .send(body)
        .expect(400);
      expect(response.body.error).toMatch(reason);
    }
    await t.api().patch(`/api/projects/${project.id}/inbound-filters`).send({ colour: 'blue' }).expect(400);
    await t.api().patch('/api/projects/999999999/inbound-filters').send({ localhost: true }).expect(404);
    const view = (await t.api().get(`/api/projects/${project.id}/inbound-filters`).expect(200)).body;
    expect(view.updated_at).toBeNull();
  });

  it('records each change in the audit log', async () => {
    const project = await createProject(t);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ web_crawlers: true, client_ips: ['10.0.0.0/8'] })
      .expect(200);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ web_crawlers: false })
      .expect(200);
    const entries = await db.query<{ action: string; details: Record<string, unknown> }[]>(
      `SELECT action, details FROM audit_log WHERE target_type = 'project' AND target_id = $1 AND action = 'project.inbound_filters_update' ORDER BY id`,
      [String(project.id)],
    );
    const served = await t
      .api()
      .get('/api/audit-log')
      .query({ action: 'project.inbound_filters_update' })
      .expect(200);
    expect(JSON.stringify(served.body)).toContain('10.0.0.0/8');
    expect(entries.map((entry) => entry.details)).toEqual([
      { web_crawlers: true, client_ips: ['10.0.0.0/8'] },
      { web_crawlers: false },
    ]);
  });
});
