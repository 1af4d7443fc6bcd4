import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { ChannelsService } from '../src/channels/channels.service';
import { Issue } from '../src/issues/issue.entity';
import { AlertHistoryEntry } from '../src/rules/alert-history.entity';
import { AlertRule } from '../src/rules/alert-rule.entity';
import { startTestApp, TestApp } from './helpers/app';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('alert rules and history', () => {
  let t: TestApp;
  let projectId: number;
  let otherProjectId: number;
  let channelA: number;
  let channelB: number;

  async function createChannel(name: string): Promise<number> {
    const response = await t
      .api()
      .post('/api/alert-channels')
      .send({ name, channel_type: 'chat', config: { webhook_url: 'https://chat.example.com/hook' } })
      .expect(201);
    return response.body.id as number;
  }

  beforeAll(async () => {
    t = await startTestApp();
    projectId = (await t.api().post('/api/projects').send({ name: 'Rules' }).expect(201)).body.id;
    otherProjectId = (await t.api().post('/api/projects').send({ name: 'Other rules' }).expect(201)).body.id;
    channelA = await createChannel('A');
    channelB = await createChannel('B');
  });
  afterAll(() => t.close());

  const rules = (id = projectId) => `/api/projects/${id}/alert-rules`;

  it('creates a rule with defaults and lists rules as a bare array ordered by id', async () => {
    const created = await t
      .api()
      .post(rules())
      .send({ name: 'New issues', alert_type: 'new_issue', channel_ids: [channelB, channelA, channelB] })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      project_id: projectId,
      name: 'New issues',
      alert_type: 'new_issue',
      is_enabled: true,
      conditions: {},
      cooldown_minutes: 0,
      notify_assignee: false,
      channel_ids: [channelA, channelB].sort((a, b) => a - b),
      created_at: expect.stringMatching(ISO),
    });

    const second = await t
      .api()
      .post(rules())
      .send({
        name: 'Regressions',
        alert_type: 'regression',
        channel_ids: [channelA],
        is_enabled: false,
        cooldown_minutes: 30,
        conditions: { environments: ['production'], min_level: 'error' },
      })
      .expect(201);
    expect(second.body).toMatchObject({
      alert_type: 'regression',
      is_enabled: false,
      cooldown_minutes: 30,
      conditions: { environments: ['production'], min_level: 'error' },
      channel_ids: [channelA],
    });

    await t.api().get(rules()).expect(200, [created.body, second.body]);
    await t.api().get(rules(otherProjectId)).expect(200, []);
    await t.api().get(`${rules()}/${created.body.id}`).expect(200, created.body);
  });

  it('updates any of name, is_enabled, channel_ids, cooldown_minutes and conditions', async () => {
    const created = await t
      .api()
      .post(rules())
      .send({ name: 'Unmutes', alert_type: 'unmute', channel_ids: [channelA] })
      .expect(201);
    const url = `${rules()}/${created.body.id}`;

    const renamed = await t.api().patch(url).send({ name: 'Unmuted issues', is_enabled: false }).expect(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'Unmuted issues', is_enabled: false });

    const moved = await t
      .api()
      .patch(url)
      .send({ channel_ids: [channelB] })
      .expect(200);
    expect(moved.body.channel_ids).toEqual([channelB]);

    const cooled = await t
      .api()
      .patch(url)
      .send({ cooldown_minutes: 525600, conditions: { min_level: 'fatal' } })
      .expect(200);
    expect(cooled.body).toMatchObject({
      cooldown_minutes: 525600,
      conditions: { min_level: 'fatal' },
      channel_ids: [channelB],
    });

    const emptied = await t.api().patch(url).send({ channel_ids: [], conditions: {} }).expect(200);
    expect(emptied.body).toMatchObject({ channel_ids: [], conditions: {} });

    await t
      .api()
      .patch(url)
      .send({ alert_type: 'new_issue' })
      .expect(400, { error: 'property alert_type should not exist' });
    await t
      .api()
      .patch(url)
      .send({ project_id: otherProjectId })
      .expect(400, { error: 'property project_id should not exist' });
    await t.api().get(url).expect(200, emptied.body);
  });

  it.each([
    [{ alert_type: 'new_issue', channel_ids: [] }, 'name must be a string'],
    [
      { name: 'x', alert_type: 'spike', channel_ids: [] },
      'alert_type must be one of new_issue, regression, unmute, new_feedback, release_health, monitor_failed, monitor_recovered, spike_protection, quota_exhausted',
    ],
    [{ name: 'x', alert_type: 'new_issue' }, 'channel_ids must be an array of channel ids'],
    [{ name: 'x', alert_type: 'new_issue', channel_ids: 3 }, 'channel_ids must be an array of channel ids'],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: ['1'] },
      'channel_ids must contain positive integers',
    ],
    [{ name: 'x', alert_type: 'new_issue', channel_ids: [0] }, 'channel_ids must contain positive integers'],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [1.5] },
      'channel_ids must contain positive integers',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [987654] },
      'channel_ids: channel 987654 does not exist',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], cooldown_minutes: -1 },
      'cooldown_minutes must not be negative',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], cooldown_minutes: 525601 },
      'cooldown_minutes must not be greater than 525600',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], cooldown_minutes: 1.5 },
      'cooldown_minutes must be an integer',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], cooldown_minutes: '5' },
      'cooldown_minutes must be an integer',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], is_enabled: 'true' },
      'is_enabled must be a boolean value',
    ],
    [{ name: 'x', alert_type: 'new_issue', channel_ids: [], conditions: [] }, 'conditions must be an object'],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], conditions: { level: 'error' } },
      'conditions.level is not supported (allowed: environments, min_level)',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], conditions: { environments: 'prod' } },
      'conditions.environments must be a list of at most 100 non-empty strings',
    ],
    [
      { name: 'x', alert_type: 'new_issue', channel_ids: [], conditions: { min_level: 'critical' } },
      'conditions.min_level must be one of debug, info, warning, error, fatal',
    ],
    [{ name: 'x', alert_type: 'new_issue', channel_ids: [], extra: 1 }, 'property extra should not exist'],
  ])('rejects %j', async (body, error) => {
    await t.api().post(rules()).send(body).expect(400, { error });
  });

  it('reports a missing channel in a patch too, and leaves the rule unchanged', async () => {
    const created = await t
      .api()
      .post(rules())
      .send({ name: 'r', alert_type: 'new_issue', channel_ids: [channelA] })
      .expect(201);
    await t
      .api()
      .patch(`${rules()}/${created.body.id}`)
      .send({ name: 'changed', channel_ids: [channelA, 876543] })
      .expect(400, { error: 'channel_ids: channel 876543 does not exist' });
    await t.api().get(`${rules()}/${created.body.id}`).expect(200, created.body);
  });

  it('drops a deleted channel from its rules', async () => {
    const doomed = await createChannel('Doomed');
    const created = await t
      .api()
      .post(rules())
      .send({ name: 'r', alert_type: 'new_issue', channel_ids: [channelA, doomed] })
      .expect(201);
    await t.api().delete(`/api/alert-channels/${doomed}`).expect(204);
    const after = await t.api().get(`${rules()}/${created.body.id}`).expect(200);
    expect(after.body.channel_ids).toEqual([channelA]);
  });

  it('scopes rules to their project: 404 for another project, unknown ids and unknown projects', async () => {
    const created = await t
      .api()
      .post(rules())
      .send({ name: 'scoped', alert_type: 'new_issue', channel_ids: [] })
      .expect(201);
    const foreign = `${rules(otherProjectId)}/${created.body.id}`;
    await t.api().get(foreign).expect(404, { error: 'alert rule not found' });
    await t.api().patch(foreign).send({ name: 'stolen' }).expect(404, { error: 'alert rule not found' });
    await t.api().delete(foreign).expect(404, { error: 'alert rule not found' });
    await t.api().get(`${rules()}/${created.body.id}`).expect(200, created.body);

    await t.api().delete(`${rules()}/${created.body.id}`).expect(204, '');
    await t.api().get(`${rules()}/${created.body.id}`).expect(404, { error: 'alert rule not found' });
    await t.api().delete(`${rules()}/${created.body.id}`).expect(404, { error: 'alert rule not found' });

    await t.api().get(rules(99999999)).expect(404, { error: 'project not found' });
    await t
      .api()
      .post(rules(99999999))
      .send({ name: 'x', alert_type: 'new_issue', channel_ids: [] })
      .expect(404, { error: 'project not found' });
    await t
      .api()
      .patch(`${rules(99999999)}/1`)
      .send({ name: 'x' })
      .expect(404, { error: 'project not found' });
    await t
      .api()
      .delete(`${rules(99999999)}/1`)
      .expect(404, { error: 'project not found' });
    await t
      .api()
      .get('/api/projects/abc/alert-rules')
      .expect(400, { error: 'project_id must be a positive integer' });
    await t.api().get(`${rules()}/1.5`).expect(400, { error: 'rule_id must be a positive integer' });
    await t.api().delete(`${rules()}/-1`).expect(400, { error: 'rule_id must be a positive integer' });
  });

  it('looks channels up by id, ignoring duplicates and unknown ids', async () => {
    const channels = await t.app.get(ChannelsService).findByIds([channelB, channelA, channelB, 123456]);
    expect(channels.map((channel) => channel.id)).toEqual([channelA, channelB].sort((a, b) => a - b));
  });

  it('deleting a project removes its rules', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Short lived' }).expect(201)).body
      .id as number;
    const rule = await t
      .api()
      .post(rules(project))
      .send({ name: 'r', alert_type: 'new_issue', channel_ids: [channelA] })
      .expect(201);
    await t.api().delete(`/api/projects/${project}`).expect(204);
    expect(await t.app.get(DataSource).getRepository(AlertRule).findOneBy({ id: rule.body.id })).toBeNull();
  });

  describe('history', () => {
    let history: Repository<AlertHistoryEntry>;
    let historyProject: number;
    const base = Date.parse('2030-01-01T00:00:00.000Z');

    beforeAll(async () => {
      history = t.app.get(DataSource).getRepository(AlertHistoryEntry);
      historyProject = (await t.api().post('/api/projects').send({ name: 'History' }).expect(201)).body.id;
      // 520 entries a minute apart, plus two sharing the newest timestamp (ties broken by id).
      const rows = Array.from({ length: 520 }, (_, i) =>
        history.create({
          projectId: historyProject,
          alertType: 'new_issue',
          channelType: 'webhook',
          channelName: `hook ${i}`,
          status: i % 2 === 0 ? 'sent' : 'failed',
          error: i % 2 === 0 ? null : 'HTTP 500',
          attempts: 1,
          idempotencyKey: randomUUID(),
          createdAt: new Date(base + i * 60_000),
          sentAt: i % 2 === 0 ? new Date(base + i * 60_000 + 500) : null,
        }),
      );
      await history.save(rows, { chunk: 100 });
      await history.save(
        ['tie 1', 'tie 2'].map((channelName) =>
          history.create({
            projectId: historyProject,
            alertType: 'regression',
            channelType: 'email',
            channelName,
            status: 'skipped',
            error: null,
            idempotencyKey: randomUUID(),
            createdAt: new Date(base + 600 * 60_000),
          }),
        ),
      );
      await history.save(
        history.create({
          projectId: otherProjectId,
          alertType: 'unmute',
          channelType: 'chat',
          channelName: 'elsewhere',
          status: 'sent',
          idempotencyKey: randomUUID(),
        }),
      );
    });

    const url = () => `/api/projects/${historyProject}/alert-history`;

    it('lists the newest 50 entries by default, newest first, as a bare array', async () => {
      const response = await t.api().get(url()).expect(200);
      expect(response.body).toHaveLength(50);
      expect(response.body[0]).toEqual({
        id: expect.any(Number),
        alert_type: 'regression',
        channel_type: 'email',
        channel_name: 'tie 2',
        status: 'skipped',
        error: null,
        issue_id: null,
        issue_short_id: null,
        release: null,
        rule_id: null,
        channel_id: null,
        created_at: '2030-01-01T10:00:00.000Z',
        sent_at: null,
      });
      expect(response.body[1].channel_name).toBe('tie 1');
      expect(response.body[2]).toEqual({
        id: expect.any(Number),
        alert_type: 'new_issue',
        channel_type: 'webhook',
        channel_name: 'hook 519',
        status: 'failed',
        error: 'HTTP 500',
        issue_id: null,
        issue_short_id: null,
        release: null,
        rule_id: null,
        channel_id: null,
        created_at: new Date(base + 519 * 60_000).toISOString(),
        sent_at: null,
      });
      expect(response.body[3]).toMatchObject({
        channel_name: 'hook 518',
        status: 'sent',
        sent_at: new Date(base + 518 * 60_000 + 500).toISOString(),
      });
      const times = (response.body as { created_at: string }[]).map((entry) => entry.created_at);
      expect(times).toEqual([...times].sort().reverse());
    });

    it('honours limit up to 500', async () => {
      expect(
        (await t.api().get(`${url()}?limit=1`).expect(200)).body.map(
          (e: { channel_name: string }) => e.channel_name,
        ),
      ).toEqual(['tie 2']);
      expect((await t.api().get(`${url()}?limit=7`).expect(200)).body).toHaveLength(7);
      const max = await t.api().get(`${url()}?limit=500`).expect(200);
      expect(max.body).toHaveLength(500);
      expect(new Set(max.body.map((entry: { id: number }) => entry.id)).size).toBe(500);
      expect(max.body.some((entry: { channel_name: string }) => entry.channel_name === 'elsewhere')).toBe(
        false,
      );
    });

    it.each(['0', '501', '-1', '1.5', 'abc', ''])('rejects limit=%s', async (limit) => {
      await t
        .api()
        .get(`${url()}?limit=${limit}`)
        .expect(400, { error: 'limit must be an integer between 1 and 500' });
    });

    it('rejects unknown query parameters, unknown projects and bad ids', async () => {
      await t.api().get(`${url()}?offset=3`).expect(400, { error: 'property offset should not exist' });
      await t.api().get('/api/projects/99999999/alert-history').expect(404, { error: 'project not found' });
      await t
        .api()
        .get('/api/projects/x/alert-history')
        .expect(400, { error: 'project_id must be a positive integer' });
      await t.http().get(url()).expect(401);
    });

    it("names each entry's issue by its short id, and by nothing once the issue is gone", async () => {
      const db = t.app.get(DataSource);
      const project = (await t.api().post('/api/projects').send({ name: 'Short Ids' }).expect(201)).body as {
        id: number;
        slug: string;
      };
      const [kept, deleted] = await db.getRepository(Issue).save(
        [7, 12].map((number) =>
          db.getRepository(Issue).create({
            projectId: project.id,
            groupingKey: randomUUID(),
            number,
            type: 'TypeError',
            message: `issue ${number}`,
            culprit: '',
            level: 'error',
            state: 'open',
            eventCount: 1,
            firstSeen: new Date(),
            lastSeen: new Date(),
          }),
        ),
      );
      await history.save(
        [kept, deleted, kept].map((issue, i) =>
          history.create({
            projectId: project.id,
            issueId: issue.id,
            alertType: 'new_issue',
            channelType: 'webhook',
            channelName: `hook ${i}`,
            status: 'sent',
            idempotencyKey: randomUUID(),
            createdAt: new Date(base + i * 60_000),
          }),
        ),
      );
      await t.api().delete(`/api/issues/${deleted.id}`).expect(204);

      const listed = (await t.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body as {
        channel_name: string;
        issue_id: number | null;
        issue_short_id: string | null;
      }[];
      const prefix = project.slug.toUpperCase();
      expect(
        listed.map(({ channel_name, issue_id, issue_short_id }) => [channel_name, issue_id, issue_short_id]),
      ).toEqual([
        ['hook 2', kept.id, `${prefix}-7`],
        ['hook 1', null, null],
        ['hook 0', kept.id, `${prefix}-7`],
      ]);
    });

    it('is empty for a project without alerts', async () => {
      const project = (await t.api().post('/api/projects').send({ name: 'Quiet' }).expect(201)).body
        .id as number;
      await t.api().get(`/api/projects/${project}/alert-history`).expect(200, []);
    });
  });
});
