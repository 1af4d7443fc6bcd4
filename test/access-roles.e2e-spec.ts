/**
 * What each role may see and do, resource by resource, with a dashboard session and with a personal
 * token: owners and admins see every project, members and viewers only their teams' (anything else
 * answers as if it did not exist), viewers only read. Real server, digest, PostgreSQL and Redis.
 */
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CROSS_SITE_MESSAGE } from '../src/auth/auth.guard';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import {
  Account,
  as,
  Client,
  Credential,
  expectStatus,
  invitedAccount,
  Role,
  roleAtLeast,
  ROLES,
} from './helpers/members';
import { enqueueEvent, openQueue, storedEvent } from './helpers/queues';

interface ProjectView {
  id: number;
  slug: string;
  client_key: string;
}

/** A project with what the cases act on: an issue with an event, a rule, and issues to use up. */
interface ProjectFixture {
  project: ProjectView;
  issueId: number;
  eventId: string;
  ruleId: number;
  /** Issues that merge and delete consume, one per request. */
  spare: number[];
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

interface Case {
  family: string;
  method: Method;
  route: string;
  /** The weakest role allowed. */
  weakest: Role;
  /** Acts on a project (A, visible to everyone; B, outside the member's and viewer's teams). */
  scoped: boolean;
  success: number;
  /** The 404 a member or viewer gets on project B: the same as for something that does not exist. */
  hidden?: (on: ProjectFixture) => object;
  /** The path and body for one request, with anything it uses up made beforehand. */
  prepare: (on: ProjectFixture, client: Client) => Promise<{ path: string; body?: object }>;
}

const SPARE_ISSUES = 18;
const RELEASE = 'shop@1.0.0';
const projectNotFound = () => ({ error: 'project not found' });
const issueNotFound = () => ({ error: 'issue not found' });
const unique = () => randomUUID().slice(0, 8);

describe('access by role', () => {
  let t: TestApp;
  let db: DataSource;
  let digest: Queue;
  let alphaId: number;
  let channelId: number;
  const accounts = {} as Record<Role, Account>;
  const fixtures = {} as Record<'A' | 'B', ProjectFixture>;

  async function createProject(name: string): Promise<ProjectView> {
    return (await expectStatus(t.api().post('/api/projects').send({ name }), 201)).body as ProjectView;
  }

  async function giveToAlpha(projectId: number): Promise<void> {
    await expectStatus(t.api().put(`/api/teams/${alphaId}/projects/${projectId}`), 204);
  }

  async function createTeam(name = `Spare ${unique()}`): Promise<number> {
    const team = await expectStatus(t.api().post('/api/teams').send({ name }), 201);
    return team.body.id;
  }

  async function createRule(projectId: number): Promise<number> {
    const rule = await expectStatus(
      t
        .api()
        .post(`/api/projects/${projectId}/alert-rules`)
        .send({ name: `rule ${unique()}`, alert_type: 'new_issue', channel_ids: [channelId] }),
      201,
    );
    return rule.body.id;
  }

  /** One issue per exception type; returns its id and its event's. */
  async function issueOf(projectId: number, type: string): Promise<{ issueId: number; eventId: string }> {
    const eventId = await enqueueEvent(digest, projectId, {
      exception: { values: [{ type, value: `${type} in checkout`, stacktrace: { frames: [] } }] },
      level: 'error',
    });
    return { issueId: (await storedEvent(t, eventId, 30_000)).issue_id, eventId };
  }

  async function projectFixture(name: string): Promise<ProjectFixture> {
    const project = await createProject(`${name} ${unique()}`);
    const types = ['MainError', ...Array.from({ length: SPARE_ISSUES }, (_, n) => `SpareError${n}`)];
    const issues = await Promise.all(types.map((type) => issueOf(project.id, type)));
    expect(new Set(issues.map((issue) => issue.issueId)).size).toBe(types.length);
    await expectStatus(
      t.api().post(`/api/0/projects/default/${project.slug}/releases/`).send({ version: RELEASE }),
      201,
    );
    return {
      project,
      issueId: issues[0].issueId,
      eventId: issues[0].eventId,
      ruleId: await createRule(project.id),
      spare: issues.slice(1).map((issue) => issue.issueId),
    };
  }

  function spareIssue(on: ProjectFixture): number {
    const id = on.spare.pop();
    if (id === undefined) throw new Error(`no spare issue left in ${on.project.slug}`);
    return id;
  }

  beforeAll(async () => {
    // Many sign-ins come from one address here; the throttle is tested elsewhere.
    t = await startTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0' });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    alphaId = await createTeam(`Alpha ${unique()}`);
    channelId = (
      await expectStatus(
        t
          .api()
          .post('/api/alert-channels')
          .send({ name: 'Ops', channel_type: 'webhook', config: { url: 'https://hooks.example.com/ops' } }),
        201,
      )
    ).body.id;
    [fixtures.A, fixtures.B] = await Promise.all([projectFixture('Roles A'), projectFixture('Roles B')]);
    await giveToAlpha(fixtures.A.project.id);

    const operator = as(t, { token: t.token });
    accounts.owner = await invitedAccount(t, operator, 'owner');
    accounts.admin = await invitedAccount(t, operator, 'admin');
    accounts.member = await invitedAccount(t, operator, 'member', { teamIds: [alphaId] });
    accounts.viewer = await invitedAccount(t, operator, 'viewer', { teamIds: [alphaId] });
  }, 120_000);
  afterAll(async () => {
    await digest?.close();
    await t?.close();
  });

  const cases: Case[] = [
    // Projects
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/projects' }),
    },
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects/:id',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}` }),
    },
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects/:id/stats',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/stats` }),
    },
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects/:id/outcomes',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/outcomes` }),
    },
    {
      family: 'projects',
      method: 'post',
      route: '/api/projects/:id/test-event',
      weakest: 'member',
      scoped: true,
      success: 202,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/test-event` }),
    },
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects/:id/environments',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/environments` }),
    },
    {
      family: 'projects',
      method: 'get',
      route: '/api/projects/:id/tags',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/tags` }),
    },
    {
      family: 'projects',
      method: 'patch',
      route: '/api/projects/:id',
      weakest: 'member',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}`, body: { retention_days: null } }),
    },
    {
      family: 'projects',
      method: 'post',
      route: '/api/projects',
      weakest: 'admin',
      scoped: false,
      success: 201,
      prepare: async () => ({ path: '/api/projects', body: { name: `Created ${unique()}` } }),
    },
    {
      family: 'projects',
      method: 'delete',
      route: '/api/projects/:id',
      weakest: 'admin',
      scoped: true,
      success: 204,
      hidden: projectNotFound,
      // A project of its own, seen like the one it stands for, so that A and B are never deleted.
      prepare: async (on) => {
        const doomed = await createProject(`Doomed ${unique()}`);
        if (on === fixtures.A) await giveToAlpha(doomed.id);
        return { path: `/api/projects/${doomed.id}` };
      },
    },
    // Issues
    {
      family: 'issues',
      method: 'get',
      route: '/api/projects/:id/issues',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/issues` }),
    },
    {
      family: 'issues',
      method: 'get',
      route: '/api/issues/:id',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}` }),
    },
    {
      family: 'issues',
      method: 'get',
      route: '/api/issues/:id/stats',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/stats` }),
    },
    {
      family: 'issues',
      method: 'get',
      route: '/api/issues/:id/tags',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/tags` }),
    },
    {
      family: 'issues',
      method: 'get',
      route: '/api/issues/:id/activity',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/activity` }),
    },
    {
      family: 'issues',
      method: 'patch',
      route: '/api/issues/:id',
      weakest: 'member',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}`, body: { state: 'resolved' } }),
    },
    {
      family: 'issues',
      method: 'patch',
      route: '/api/projects/:id/issues',
      weakest: 'member',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({
        path: `/api/projects/${on.project.id}/issues`,
        body: { ids: [on.issueId], state: 'open' },
      }),
    },
    {
      family: 'issues',
      method: 'post',
      route: '/api/issues/:id/merge',
      weakest: 'member',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/merge`, body: { ids: [spareIssue(on)] } }),
    },
    {
      family: 'issues',
      method: 'delete',
      route: '/api/issues/:id',
      weakest: 'member',
      scoped: true,
      success: 204,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${spareIssue(on)}` }),
    },
    // Events
    {
      family: 'events',
      method: 'get',
      route: '/api/issues/:id/events',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/events` }),
    },
    {
      family: 'events',
      method: 'get',
      route: '/api/issues/:id/events/latest',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/events/latest` }),
    },
    {
      family: 'events',
      method: 'get',
      route: '/api/issues/:id/events/oldest',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: issueNotFound,
      prepare: async (on) => ({ path: `/api/issues/${on.issueId}/events/oldest` }),
    },
    {
      family: 'events',
      method: 'get',
      route: '/api/events/:eventId',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: () => ({ error: 'event not found' }),
      prepare: async (on) => ({ path: `/api/events/${on.eventId}` }),
    },
    // Releases
    {
      family: 'releases',
      method: 'get',
      route: '/api/projects/:id/releases',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/releases` }),
    },
    {
      family: 'releases',
      method: 'get',
      route: '/api/projects/:id/releases/:version',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({
        path: `/api/projects/${on.project.id}/releases/${encodeURIComponent(RELEASE)}`,
      }),
    },
    {
      family: 'releases',
      method: 'get',
      route: '/api/0/projects/:org/:project/releases/ (sentry-cli)',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: (on) => ({ error: `project ${JSON.stringify(on.project.slug)} not found` }),
      prepare: async (on) => ({ path: `/api/0/projects/default/${on.project.slug}/releases/` }),
    },
    {
      family: 'releases',
      method: 'post',
      route: '/api/0/projects/:org/:project/releases/ (sentry-cli)',
      weakest: 'member',
      scoped: true,
      success: 201,
      hidden: (on) => ({ error: `project ${JSON.stringify(on.project.slug)} not found` }),
      prepare: async (on) => ({
        path: `/api/0/projects/default/${on.project.slug}/releases/`,
        body: { version: `shop@${unique()}` },
      }),
    },
    // Alert rules
    {
      family: 'alert rules',
      method: 'get',
      route: '/api/projects/:id/alert-rules',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/alert-rules` }),
    },
    {
      family: 'alert rules',
      method: 'get',
      route: '/api/projects/:id/alert-history',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/alert-history` }),
    },
    {
      family: 'alert rules',
      method: 'post',
      route: '/api/projects/:id/alert-rules',
      weakest: 'member',
      scoped: true,
      success: 201,
      hidden: projectNotFound,
      prepare: async (on) => ({
        path: `/api/projects/${on.project.id}/alert-rules`,
        body: { name: `rule ${unique()}`, alert_type: 'regression', channel_ids: [channelId] },
      }),
    },
    {
      family: 'alert rules',
      method: 'patch',
      route: '/api/projects/:id/alert-rules/:ruleId',
      weakest: 'member',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({
        path: `/api/projects/${on.project.id}/alert-rules/${on.ruleId}`,
        body: { cooldown_minutes: 5 },
      }),
    },
    {
      family: 'alert rules',
      method: 'delete',
      route: '/api/projects/:id/alert-rules/:ruleId',
      weakest: 'member',
      scoped: true,
      success: 204,
      hidden: projectNotFound,
      prepare: async (on) => ({
        path: `/api/projects/${on.project.id}/alert-rules/${await createRule(on.project.id)}`,
      }),
    },
    // Alert channels
    {
      family: 'alert channels',
      method: 'get',
      route: '/api/alert-channels',
      weakest: 'member',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/alert-channels' }),
    },
    {
      family: 'alert channels',
      method: 'get',
      route: '/api/alert-channels/:id',
      weakest: 'member',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: `/api/alert-channels/${channelId}` }),
    },
    {
      family: 'alert channels',
      method: 'post',
      route: '/api/alert-channels',
      weakest: 'admin',
      scoped: false,
      success: 201,
      prepare: async () => ({
        path: '/api/alert-channels',
        body: { name: `Mail ${unique()}`, channel_type: 'email', config: { to: ['ops@example.com'] } },
      }),
    },
    {
      family: 'alert channels',
      method: 'patch',
      route: '/api/alert-channels/:id',
      weakest: 'admin',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: `/api/alert-channels/${channelId}`, body: { name: `Ops ${unique()}` } }),
    },
    {
      family: 'alert channels',
      method: 'delete',
      route: '/api/alert-channels/:id',
      weakest: 'admin',
      scoped: false,
      success: 204,
      prepare: async () => {
        const doomed = await expectStatus(
          t
            .api()
            .post('/api/alert-channels')
            .send({ name: `Doomed ${unique()}`, channel_type: 'email', config: { to: ['x@example.com'] } }),
          201,
        );
        return { path: `/api/alert-channels/${doomed.body.id}` };
      },
    },
    // Artifact bundles
    {
      family: 'artifact bundles',
      method: 'get',
      route: '/api/projects/:id/artifact-bundles',
      weakest: 'viewer',
      scoped: true,
      success: 200,
      hidden: projectNotFound,
      prepare: async (on) => ({ path: `/api/projects/${on.project.id}/artifact-bundles` }),
    },
    {
      family: 'artifact bundles',
      method: 'delete',
      route: '/api/projects/:id/artifact-bundles/:bundleId',
      weakest: 'member',
      scoped: true,
      success: 204,
      hidden: projectNotFound,
      // The row alone: what sentry-cli uploads is beside the point here.
      prepare: async (on) => {
        const [bundle] = await db.query<{ id: string }[]>(
          `INSERT INTO artifact_bundles (project_id, checksum, file_count, size)
           VALUES ($1, $2, 0, 0) RETURNING id`,
          [on.project.id, randomUUID().replace(/-/g, '')],
        );
        return { path: `/api/projects/${on.project.id}/artifact-bundles/${bundle.id}` };
      },
    },
    // Members
    {
      family: 'members',
      method: 'get',
      route: '/api/members',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/members' }),
    },
    {
      family: 'members',
      method: 'get',
      route: '/api/members/:id',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: `/api/members/${accounts.admin.id}` }),
    },
    {
      family: 'members',
      method: 'patch',
      route: '/api/members/:id',
      weakest: 'admin',
      scoped: false,
      success: 200,
      prepare: async () => ({
        path: `/api/members/${accounts.viewer.id}`,
        body: { name: `Vera ${unique()}` },
      }),
    },
    // Teams
    {
      family: 'teams',
      method: 'get',
      route: '/api/teams',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/teams' }),
    },
    {
      family: 'teams',
      method: 'get',
      route: '/api/teams/:id',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: `/api/teams/${alphaId}` }),
    },
    {
      family: 'teams',
      method: 'post',
      route: '/api/teams',
      weakest: 'admin',
      scoped: false,
      success: 201,
      prepare: async () => ({ path: '/api/teams', body: { name: `Beta ${unique()}` } }),
    },
    {
      family: 'teams',
      method: 'patch',
      route: '/api/teams/:id',
      weakest: 'admin',
      scoped: false,
      success: 200,
      prepare: async () => ({
        path: `/api/teams/${await createTeam()}`,
        body: { name: `Renamed ${unique()}` },
      }),
    },
    {
      family: 'teams',
      method: 'delete',
      route: '/api/teams/:id',
      weakest: 'admin',
      scoped: false,
      success: 204,
      prepare: async () => ({ path: `/api/teams/${await createTeam()}` }),
    },
    {
      family: 'teams',
      method: 'put',
      route: '/api/teams/:id/members/:userId',
      weakest: 'admin',
      scoped: false,
      success: 204,
      // A team without projects: joining it changes what the viewer sees in no other case.
      prepare: async () => ({ path: `/api/teams/${await createTeam()}/members/${accounts.viewer.id}` }),
    },
    {
      family: 'teams',
      method: 'delete',
      route: '/api/teams/:id/members/:userId',
      weakest: 'admin',
      scoped: false,
      success: 204,
      prepare: async () => {
        const teamId = await createTeam();
        await expectStatus(t.api().put(`/api/teams/${teamId}/members/${accounts.viewer.id}`), 204);
        return { path: `/api/teams/${teamId}/members/${accounts.viewer.id}` };
      },
    },
    {
      family: 'teams',
      method: 'put',
      route: '/api/teams/:id/projects/:projectId',
      weakest: 'admin',
      scoped: false,
      success: 204,
      // Project A, which everyone sees, on a team without members: what it tells is the role alone.
      prepare: async () => ({ path: `/api/teams/${await createTeam()}/projects/${fixtures.A.project.id}` }),
    },
    {
      family: 'teams',
      method: 'delete',
      route: '/api/teams/:id/projects/:projectId',
      weakest: 'admin',
      scoped: false,
      success: 204,
      prepare: async () => {
        const teamId = await createTeam();
        await expectStatus(t.api().put(`/api/teams/${teamId}/projects/${fixtures.A.project.id}`), 204);
        return { path: `/api/teams/${teamId}/projects/${fixtures.A.project.id}` };
      },
    },
    // Invitations
    {
      family: 'invitations',
      method: 'get',
      route: '/api/invitations',
      weakest: 'admin',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/invitations' }),
    },
    {
      family: 'invitations',
      method: 'post',
      route: '/api/invitations',
      weakest: 'admin',
      scoped: false,
      success: 201,
      prepare: async () => ({
        path: '/api/invitations',
        body: { email: `guest-${unique()}@example.com`, role: 'viewer' },
      }),
    },
    {
      family: 'invitations',
      method: 'delete',
      route: '/api/invitations/:id',
      weakest: 'admin',
      scoped: false,
      success: 204,
      prepare: async () => {
        const invitation = await expectStatus(
          t
            .api()
            .post('/api/invitations')
            .send({ email: `doomed-${unique()}@example.com`, role: 'viewer' }),
          201,
        );
        return { path: `/api/invitations/${invitation.body.id}` };
      },
    },
    // Tokens: one's own, whatever the role.
    {
      family: 'tokens',
      method: 'get',
      route: '/api/tokens',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/tokens' }),
    },
    {
      family: 'tokens',
      method: 'post',
      route: '/api/tokens',
      weakest: 'viewer',
      scoped: false,
      success: 201,
      prepare: async () => ({ path: '/api/tokens', body: { description: `made ${unique()}` } }),
    },
    {
      family: 'tokens',
      method: 'delete',
      route: '/api/tokens/:id (own)',
      weakest: 'viewer',
      scoped: false,
      success: 204,
      prepare: async (_on, client) => {
        const own = await expectStatus(client.post('/api/tokens').send({ description: 'short lived' }), 201);
        return { path: `/api/tokens/${own.body.id}` };
      },
    },
    // Audit log
    {
      family: 'audit log',
      method: 'get',
      route: '/api/audit-log',
      weakest: 'admin',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/api/audit-log' }),
    },
    // One's own account
    {
      family: 'account',
      method: 'get',
      route: '/auth/me',
      weakest: 'viewer',
      scoped: false,
      success: 200,
      prepare: async () => ({ path: '/auth/me' }),
    },
  ];

  /** Each case on A, and on B too when it acts on a project (org-level cases run once). */
  const runs: [string, Case, 'A' | 'B'][] = cases.flatMap((each): [string, Case, 'A' | 'B'][] =>
    each.scoped
      ? [
          [`${each.family}: ${each.method.toUpperCase()} ${each.route} on project A`, each, 'A'],
          [`${each.family}: ${each.method.toUpperCase()} ${each.route} on project B`, each, 'B'],
        ]
      : [[`${each.family}: ${each.method.toUpperCase()} ${each.route}`, each, 'A']],
  );

  function expectedFor(role: Role, each: Case, where: 'A' | 'B'): { status: number; body: unknown } {
    if (each.scoped && where === 'B' && !roleAtLeast(role, 'admin')) {
      return { status: 404, body: each.hidden!(fixtures.B) };
    }
    if (!roleAtLeast(role, each.weakest)) return { status: 403, body: { error: expect.any(String) } };
    return { status: each.success, body: expect.anything() };
  }

  describe.each([
    ['session cookie', (account: Account): Credential => ({ cookie: account.cookie })],
    ['personal token', (account: Account): Credential => ({ token: account.token })],
  ])('with a %s', (_kind, credentialOf) => {
    describe.each(ROLES)('as %s', (role) => {
      it.each(runs)('%s', async (_name, each, where) => {
        const client = as(t, credentialOf(accounts[role]));
        const { path, body } = await each.prepare(fixtures[where], client);
        const request = client[each.method](path);
        const response = await (body === undefined ? request : request.send(body));
        // Status and body together, so that a wrong status shows what the server said.
        expect({ status: response.status, body: response.body }).toEqual(expectedFor(role, each, where));
      });
    });
  });

  it('lists to members and viewers only the projects of their teams, to admins and owners all', async () => {
    for (const role of ROLES) {
      const listed = await expectStatus(as(t, { token: accounts[role].token }).get('/api/projects'), 200);
      const ids = (listed.body.data as { id: number }[]).map((project) => project.id);
      expect(ids).toContain(fixtures.A.project.id);
      if (roleAtLeast(role, 'admin')) expect(ids).toContain(fixtures.B.project.id);
      else expect(ids).not.toContain(fixtures.B.project.id);
    }
  });

  it('hides project B from the issue and event lists of members and viewers as if it did not exist', async () => {
    const missing = 2_000_000_000;
    for (const role of ['member', 'viewer'] as const) {
      const client = as(t, { cookie: accounts[role].cookie });
      // What cannot be seen answers exactly like what does not exist.
      const [hidden, absent] = await Promise.all([
        client.get(`/api/projects/${fixtures.B.project.id}/issues`),
        client.get(`/api/projects/${missing}/issues`),
      ]);
      expect({ status: hidden.status, body: hidden.body }).toEqual({
        status: absent.status,
        body: absent.body,
      });
      expect(hidden.status).toBe(404);
      const [hiddenIssue, absentIssue] = await Promise.all([
        client.get(`/api/issues/${fixtures.B.issueId}/events`),
        client.get(`/api/issues/${missing}/events`),
      ]);
      expect({ status: hiddenIssue.status, body: hiddenIssue.body }).toEqual({
        status: absentIssue.status,
        body: absentIssue.body,
      });
      expect(hiddenIssue.status).toBe(404);
    }
  });

  it('does not let a member reach project B through project A’s routes or organisation-wide ones', async () => {
    const member = as(t, { token: accounts.member.token });
    const absent = `no-such-project-${unique()}`;
    // Naming a hidden project in a body answers like naming one that does not exist.
    for (const [method, path, body] of [
      ['post', '/api/0/organizations/default/releases/', { version: `x@${unique()}`, projects: ['SLUG'] }],
      ['put', `/api/0/organizations/default/releases/${RELEASE}/`, { projects: ['SLUG'] }],
    ] as const) {
      const send = (slug: string) =>
        member[method](path).send({ ...body, projects: body.projects.map(() => slug) });
      const [hidden, missing] = [await send(fixtures.B.project.slug), await send(absent)];
      expect({ status: hidden.status, body: hidden.body }).toEqual({
        status: missing.status,
        body: JSON.parse(JSON.stringify(missing.body).replace(absent, fixtures.B.project.slug)),
      });
      expect(hidden.status).toBeGreaterThanOrEqual(400);
    }
    // The organisation's releases show only what the member sees.
    const releases = await expectStatus(member.get('/api/0/organizations/default/releases/'), 200);
    const slugs = (releases.body as { projects: { slug: string }[] }[]).flatMap((release) =>
      release.projects.map((project) => project.slug),
    );
    expect(slugs).toContain(fixtures.A.project.slug);
    expect(slugs).not.toContain(fixtures.B.project.slug);

    // B's issues cannot be triaged or merged through A.
    const before = await expectStatus(t.api().get(`/api/issues/${fixtures.B.issueId}`), 200);
    const bulk = await member
      .patch(`/api/projects/${fixtures.A.project.id}/issues`)
      .send({ ids: [fixtures.B.issueId], state: 'muted' });
    expect(bulk.status).not.toBe(200);
    const merge = await member
      .post(`/api/issues/${fixtures.A.issueId}/merge`)
      .send({ ids: [fixtures.B.issueId] });
    expect(merge.status).not.toBe(200);
    const after = await expectStatus(t.api().get(`/api/issues/${fixtures.B.issueId}`), 200);
    expect({ state: after.body.state, project_id: after.body.project_id }).toEqual({
      state: before.body.state,
      project_id: fixtures.B.project.id,
    });
  });

  it('describes each account in /auth/me: its role, what it may do and the projects it sees', async () => {
    const permissions = {} as Record<Role, string[]>;
    for (const role of ROLES) {
      const account = accounts[role];
      const bySession = await expectStatus(as(t, { cookie: account.cookie }).get('/auth/me'), 200);
      expect(bySession.body).toMatchObject({
        kind: 'user',
        id: account.id,
        email: account.email,
        role,
        read_only: false,
        permissions: expect.any(Array),
      });
      const byToken = await expectStatus(as(t, { token: account.token }).get('/auth/me'), 200);
      expect(byToken.body).toMatchObject({ kind: 'token', email: account.email, role, read_only: false });
      permissions[role] = bySession.body.permissions;
      expect([...byToken.body.permissions].sort()).toEqual([...permissions[role]].sort());
      const seen: number[] | null = bySession.body.project_ids;
      if (roleAtLeast(role, 'admin')) {
        // Every project, whether as null (no limit) or as the list of all of them.
        if (seen !== null)
          expect(seen).toEqual(expect.arrayContaining([fixtures.A.project.id, fixtures.B.project.id]));
      } else {
        expect(seen).toContain(fixtures.A.project.id);
        expect(seen).not.toContain(fixtures.B.project.id);
      }
    }
    // Each role holds all its inferior's permissions and more; owners hold at least an admin's.
    const holds = (stronger: Role, weaker: Role) =>
      expect(permissions[stronger]).toEqual(expect.arrayContaining(permissions[weaker]));
    holds('member', 'viewer');
    holds('admin', 'member');
    holds('owner', 'admin');
    expect(permissions.member.length).toBeGreaterThan(permissions.viewer.length);
    expect(permissions.admin.length).toBeGreaterThan(permissions.member.length);
  });

  it('refuses a change made with the cookie that does not come from the app itself, and allows reads', async () => {
    const { cookie } = accounts.owner;
    for (const origin of [null, 'https://evil.example.com']) {
      const refused = await as(t, { cookie }, { origin })
        .post('/api/tokens')
        .send({ description: 'cross-site' });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 403,
        body: { error: CROSS_SITE_MESSAGE },
      });
    }
    await expectStatus(as(t, { cookie }, { origin: null }).get('/api/projects'), 200);
    // The bearer token is never sent by a browser on its own: no Origin needed.
    await expectStatus(
      as(t, { token: accounts.owner.token }).post('/api/tokens').send({ description: 'cli' }),
      201,
    );
    const listed = await expectStatus(as(t, { token: accounts.owner.token }).get('/api/tokens'), 200);
    const descriptions = (listed.body.data as { description: string }[]).map((token) => token.description);
    expect(descriptions).not.toContain('cross-site');
  });

  it('keeps ingesting into project B, which no one on its team can see', async () => {
    const key = fixtures.B.project.client_key.replace(/-/g, '');
    const eventId = randomUUID().replace(/-/g, '');
    const stored = await t
      .http()
      .post(`/api/${fixtures.B.project.id}/store/`)
      .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${key}, sentry_client=e2e/1.0`)
      .send({
        event_id: eventId,
        message: 'ingested where no member looks',
        level: 'error',
        exception: { values: [{ type: 'UnseenError', value: 'nobody watches', stacktrace: { frames: [] } }] },
      });
    expect({ status: stored.status, body: stored.body }).toEqual({ status: 200, body: { id: eventId } });
    const event = await storedEvent(t, eventId, 30_000);
    expect(event.project_id).toBe(fixtures.B.project.id);
    for (const role of ['member', 'viewer'] as const) {
      const client = as(t, { token: accounts[role].token });
      await client.get(`/api/events/${eventId}`).expect(404);
      await client.get(`/api/issues/${event.issue_id}`).expect(404, { error: 'issue not found' });
    }
    await as(t, { token: accounts.admin.token }).get(`/api/issues/${event.issue_id}`).expect(200);
    // Also through an envelope, as current SDKs send.
    const envelopeId = randomUUID().replace(/-/g, '');
    const envelope = [
      JSON.stringify({ event_id: envelopeId, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify({ event_id: envelopeId, message: 'by envelope', level: 'error' }),
    ].join('\n');
    await t
      .http()
      .post(`/api/${fixtures.B.project.id}/envelope/`)
      .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${key}, sentry_client=e2e/1.0`)
      .set('Content-Type', 'application/x-sentry-envelope')
      .send(envelope)
      .expect(200);
    expect((await storedEvent(t, envelopeId, 30_000)).project_id).toBe(fixtures.B.project.id);
  });
});
