import { checkInUuid, normaliseSlug, readCheckInFields, readCheckInItem } from './check-in-record';

const item = (fields: Record<string, unknown>) => readCheckInItem(JSON.stringify(fields), 7, 1_000);
const ID = 'a460c25ff2554577b920fcfacae4e5eb';

describe('check-in items', () => {
  it('reads what the SDKs send', () => {
    const reading = item({
      check_in_id: ID,
      monitor_slug: 'Nightly Backup',
      status: 'ok',
      duration: 1.5,
      environment: 'staging',
      release: 'app@1.0.0',
      monitor_config: {
        schedule: { type: 'crontab', value: '0 * * * *' },
        checkin_margin: 5,
        max_runtime: 10,
        timezone: 'Europe/Vienna',
        failure_issue_threshold: 2,
        recovery_threshold: 3,
      },
    });
    expect(reading).toEqual({
      checkIn: {
        projectId: 7,
        checkInId: 'a460c25f-f255-4577-b920-fcfacae4e5eb',
        slug: 'nightly-backup',
        status: 'ok',
        environment: 'staging',
        durationMs: 1500,
        release: 'app@1.0.0',
        monitorConfig: {
          schedule: { type: 'crontab', value: '0 * * * *' },
          checkin_margin: 5,
          max_runtime: 10,
          timezone: 'Europe/Vienna',
          failure_issue_threshold: 2,
          recovery_threshold: 3,
        },
        receivedAt: 1_000,
      },
    });
  });

  it('defaults the environment to production and reads the nil UUID as "the latest"', () => {
    const reading = item({
      check_in_id: '00000000-0000-0000-0000-000000000000',
      monitor_slug: 'x',
      status: 'ok',
    });
    expect(reading).toMatchObject({
      checkIn: { checkInId: null, environment: 'production', durationMs: null },
    });
  });

  it('refuses what Sentry refuses, with the reason counted', () => {
    expect(readCheckInItem('{', 7, 0)).toMatchObject({ refused: 'invalid_check_in' });
    expect(item({ monitor_slug: 'x', status: 'ok' })).toMatchObject({ refused: 'invalid_guid' });
    expect(item({ check_in_id: 'nope', monitor_slug: 'x', status: 'ok' })).toMatchObject({
      refused: 'invalid_guid',
    });
    expect(item({ check_in_id: ID, monitor_slug: '!!!', status: 'ok' })).toMatchObject({
      refused: 'invalid_slug',
    });
    expect(item({ check_in_id: ID, monitor_slug: 'x', status: 'missed' })).toMatchObject({
      refused: 'invalid_status',
    });
    expect(item({ check_in_id: ID, monitor_slug: 'x' })).toMatchObject({ refused: 'invalid_status' });
    expect(item({ check_in_id: ID, monitor_slug: 'x', status: 'ok', duration: -1 })).toMatchObject({
      refused: 'invalid_duration',
    });
    expect(item({ check_in_id: ID, monitor_slug: 'x', status: 'ok', environment: 'a/b' })).toMatchObject({
      refused: 'invalid_environment',
    });
  });

  it('keeps a check-in whose monitor_config is invalid, without the config', () => {
    const reading = item({
      check_in_id: ID,
      monitor_slug: 'x',
      status: 'ok',
      monitor_config: { schedule: { type: 'crontab', value: '61 * * * *' } },
    });
    expect(reading).toMatchObject({
      checkIn: { monitorConfig: null },
      configRefused: expect.stringMatching(/61/),
    });
    const zero = item({
      check_in_id: ID,
      monitor_slug: 'x',
      status: 'ok',
      monitor_config: { schedule: { type: 'interval', value: 0, unit: 'minute' } },
    });
    expect(zero).toMatchObject({ configRefused: expect.stringMatching(/from 1/) });
  });

  it('lets the HTTP check-in leave the id out', () => {
    expect(readCheckInFields({ status: 'ok' }, 7, 0, { idRequired: false, slug: 'My Job' })).toMatchObject({
      checkIn: { checkInId: null, slug: 'my-job' },
    });
  });

  it('normalises slugs as Sentry does', () => {
    expect(normaliseSlug('My Monitor')).toBe('my-monitor');
    expect(normaliseSlug('  Crème brûlée -- job_1 ')).toBe('creme-brulee-job_1');
    expect(normaliseSlug('a.b/c')).toBe('abc');
    expect(normaliseSlug('x'.repeat(80))).toHaveLength(50);
    expect(normaliseSlug('日本')).toBe('');
    expect(checkInUuid('A460C25F-F255-4577-B920-FCFACAE4E5EB')).toBe('a460c25f-f255-4577-b920-fcfacae4e5eb');
  });
});
