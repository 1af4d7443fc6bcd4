import { DataSource } from 'typeorm';
import { NotificationChannel } from '../src/channels/channel.entity';
import { startTestApp, TestApp } from './helpers/app';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('alert channels', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates each channel type and returns the full view', async () => {
    const webhook = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Ops webhook',
        channel_type: 'webhook',
        config: {
          url: 'https://hooks.example.com/errors',
          secret: 'whsec_0123456789abcdef',
          headers: { 'X-Team': 'ops' },
        },
      })
      .expect(201);
    expect(webhook.body).toEqual({
      id: expect.any(Number),
      name: 'Ops webhook',
      channel_type: 'webhook',
      config: {
        url: 'https://hooks.example.com/errors',
        secret: 'whse...****',
        headers: { 'X-Team': 'ops' },
      },
      is_enabled: true,
      failure_count: 0,
      last_success_at: null,
      last_error: null,
      created_at: expect.stringMatching(ISO),
    });

    const email = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Mail', channel_type: 'email', config: { to: ['ops@example.com'] }, is_enabled: false })
      .expect(201);
    expect(email.body).toMatchObject({
      channel_type: 'email',
      config: { to: ['ops@example.com'] },
      is_enabled: false,
    });

    const chat = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Slack',
        channel_type: 'chat',
        config: { webhook_url: 'https://hooks.slack.com/services/T/B/X' },
      })
      .expect(201);
    expect(chat.body).toMatchObject({
      channel_type: 'chat',
      config: { webhook_url: 'https://hooks.slack.com/services/T/B/X' },
    });

    const list = await t.api().get('/api/alert-channels').expect(200);
    expect(Array.isArray(list.body)).toBe(true);
    const ids = (list.body as { id: number }[]).map((channel) => channel.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const mine = (list.body as { id: number }[]).filter((channel) =>
      [webhook.body.id, email.body.id, chat.body.id].includes(channel.id),
    );
    expect(mine).toEqual([webhook.body, email.body, chat.body]);

    await t.api().get(`/api/alert-channels/${chat.body.id}`).expect(200, chat.body);
  });

  it('never returns a secret in full, and a short secret not at all', async () => {
    const created = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Short secret',
        channel_type: 'webhook',
        config: { url: 'http://example.com/h', secret: 'abc' },
      })
      .expect(201);
    expect(created.body.config.secret).toBe('****');
    const list = await t.api().get('/api/alert-channels').expect(200);
    expect(JSON.stringify(list.body)).not.toContain('whsec_0123456789abcdef');
    expect(JSON.stringify(list.body)).not.toContain('"abc"');
  });

  it('updates name, is_enabled and config, keeping the secret when its masked value comes back', async () => {
    const created = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Hook',
        channel_type: 'webhook',
        config: { url: 'https://a.example.com/', secret: 'supersecretvalue1' },
      })
      .expect(201);
    const id = created.body.id as number;

    const renamed = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ name: 'Renamed', is_enabled: false })
      .expect(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'Renamed', is_enabled: false });

    // The dashboard sends back the config it was shown: the masked secret means "unchanged".
    const moved = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://b.example.com/', secret: 'supe...****' } })
      .expect(200);
    expect(moved.body.config).toEqual({ url: 'https://b.example.com/', secret: 'supe...****' });
    const repository = t.app.get(DataSource).getRepository(NotificationChannel);
    expect((await repository.findOneByOrFail({ id })).config).toEqual({
      url: 'https://b.example.com/',
      secret: 'supersecretvalue1',
    });

    const rotated = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://b.example.com/', secret: 'another-secret-2' } })
      .expect(200);
    expect(rotated.body.config.secret).toBe('anot...****');
    expect((await repository.findOneByOrFail({ id })).config.secret).toBe('another-secret-2');

    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://b.example.com/', secret: 'xxxx...****' } })
      .expect(400, {
        error: 'config.secret is a masked value: send the new secret, or the masked value unchanged',
      });

    // Without a secret the config is replaced as sent: the secret is removed.
    const cleared = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://c.example.com/' } })
      .expect(200);
    expect(cleared.body.config).toEqual({ url: 'https://c.example.com/' });
    expect((await repository.findOneByOrFail({ id })).config).toEqual({ url: 'https://c.example.com/' });
  });

  it('revalidates a patched config against the channel type, which cannot change', async () => {
    const created = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Chat', channel_type: 'chat', config: { webhook_url: 'https://chat.example.com/hook' } })
      .expect(201);
    const id = created.body.id as number;
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://chat.example.com/hook' } })
      .expect(400, { error: 'config.url is not a setting of chat channels (allowed: webhook_url)' });
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { webhook_url: 'ftp://chat.example.com' } })
      .expect(400, { error: 'config.webhook_url must be an http(s) URL' });
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ channel_type: 'webhook' })
      .expect(400, { error: 'property channel_type should not exist' });
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ failure_count: 0 })
      .expect(400, { error: 'property failure_count should not exist' });
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ is_enabled: 'yes' })
      .expect(400, { error: 'is_enabled must be a boolean value' });
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ name: '' })
      .expect(400, { error: 'name should not be empty' });
    await t.api().get(`/api/alert-channels/${id}`).expect(200, created.body);
  });

  it.each([
    [{ name: 'x', channel_type: 'sms', config: {} }, 'channel_type must be one of webhook, email, chat'],
    [{ name: 'x', config: {} }, 'channel_type must be one of webhook, email, chat'],
    [{ channel_type: 'chat', config: { webhook_url: 'https://x.io' } }, 'name must be a string'],
    [{ name: 'x', channel_type: 'chat' }, 'config must be an object'],
    [{ name: 'x', channel_type: 'chat', config: 'https://x.io' }, 'config must be an object'],
    [{ name: 'x', channel_type: 'chat', config: {} }, 'config.webhook_url must be an http(s) URL'],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'file:///etc/passwd' } },
      'config.url must be an http(s) URL',
    ],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', token: 'a' } },
      'config.token is not a setting of webhook channels (allowed: url, secret, headers)',
    ],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', secret: 5 } },
      'config.secret must be a non-empty string of at most 256 characters',
    ],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', secret: 'abcd...****' } },
      'config.secret is a masked value: send the secret itself',
    ],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', headers: { A: 1 } } },
      'config.headers.A must be a single-line string',
    ],
    [
      { name: 'x', channel_type: 'email', config: { to: [] } },
      'config.to must be a non-empty list of e-mail addresses',
    ],
    [
      { name: 'x', channel_type: 'email', config: { to: ['not-an-address'] } },
      'config.to: "not-an-address" is not a valid e-mail address',
    ],
    [
      {
        name: 'x',
        channel_type: 'email',
        config: { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) },
      },
      'config.to may have at most 50 addresses',
    ],
    [
      { name: 'x', channel_type: 'chat', config: { webhook_url: 'https://x.io' }, is_enabled: 1 },
      'is_enabled must be a boolean value',
    ],
    [
      { name: 'x', channel_type: 'chat', config: { webhook_url: 'https://x.io' }, id: 3 },
      'property id should not exist',
    ],
  ])('rejects %j', async (body, error) => {
    await t.api().post('/api/alert-channels').send(body).expect(400, { error });
  });

  it('deletes a channel, and answers 404 and 400 for unknown and malformed ids', async () => {
    const created = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Doomed', channel_type: 'chat', config: { webhook_url: 'https://x.io/h' } })
      .expect(201);
    await t.api().delete(`/api/alert-channels/${created.body.id}`).expect(204, '');
    await t.api().get(`/api/alert-channels/${created.body.id}`).expect(404, { error: 'channel not found' });
    await t
      .api()
      .delete(`/api/alert-channels/${created.body.id}`)
      .expect(404, { error: 'channel not found' });
    await t
      .api()
      .patch(`/api/alert-channels/${created.body.id}`)
      .send({ name: 'x' })
      .expect(404, { error: 'channel not found' });
    for (const bad of ['abc', '1.5', '-1', '0']) {
      await t.api().get(`/api/alert-channels/${bad}`).expect(400, { error: 'id must be a positive integer' });
      await t
        .api()
        .delete(`/api/alert-channels/${bad}`)
        .expect(400, { error: 'id must be a positive integer' });
    }
  });

  it('requires authentication', async () => {
    await t.http().get('/api/alert-channels').expect(401);
    await t
      .http()
      .post('/api/alert-channels')
      .send({ name: 'x', channel_type: 'chat', config: { webhook_url: 'https://x.io' } })
      .expect(401);
  });
});
