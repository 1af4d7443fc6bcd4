import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { NotificationChannel } from '../src/channels/channel.entity';
import { startTestApp, TestApp } from './helpers/app';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('alert channels', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The echoing receiver of the test-endpoint checks listens on 127.0.0.1.
    t = await startTestApp({ ALERTS_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => t.close());

  const stored = async (id: number) =>
    (await t.app.get(DataSource).getRepository(NotificationChannel).findOneByOrFail({ id })).config;

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
        headers: { 'X-Team': '****' },
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
      config: { webhook_url: 'https://hooks.slack.com/…****' },
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

    // A config without its secret keeps the stored one: secrets are write-only, a client cannot
    // send them back. `null` removes it.
    const moved2 = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://c.example.com/' } })
      .expect(200);
    expect(moved2.body.config).toEqual({ url: 'https://c.example.com/', secret: 'anot...****' });
    expect((await repository.findOneByOrFail({ id })).config).toEqual({
      url: 'https://c.example.com/',
      secret: 'another-secret-2',
    });
    const cleared = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { url: 'https://c.example.com/', secret: null } })
      .expect(200);
    expect(cleared.body.config).toEqual({ url: 'https://c.example.com/' });
    expect((await repository.findOneByOrFail({ id })).config).toEqual({ url: 'https://c.example.com/' });
  });

  const SECRETS = [
    'url-pa55word',
    'url-user',
    'qs-token-0123',
    'whsec_0123456789abcdef',
    'Bearer bearer-0123456789',
    'bearer-0123456789',
    'apikey-abcdef0123456',
    'T0000/B0000/XXXXXXXXXXXX',
    'hooks/secret-path-1',
  ];

  function expectNoSecret(body: unknown): void {
    const text = JSON.stringify(body);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  }

  it('masks every secret of every channel type in create, get, list and patch answers', async () => {
    const webhookConfig = {
      url: 'https://url-user:url-pa55word@hooks.example.com:8443/in/errors?token=qs-token-0123',
      secret: 'whsec_0123456789abcdef',
      headers: {
        Authorization: 'Bearer bearer-0123456789',
        'X-Api-Key': 'apikey-abcdef0123456',
        'X-Team': 'ops',
      },
    };
    const webhook = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Secret hook', channel_type: 'webhook', config: webhookConfig })
      .expect(201);
    expect(webhook.body.config).toEqual({
      url: 'https://****:****@hooks.example.com:8443/in/errors?****',
      secret: 'whse...****',
      headers: { Authorization: 'Bear...****', 'X-Api-Key': 'apik...****', 'X-Team': '****' },
    });
    const chatConfig = { webhook_url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXX' };
    const chat = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Secret chat', channel_type: 'chat', config: chatConfig })
      .expect(201);
    expect(chat.body.config).toEqual({ webhook_url: 'https://hooks.slack.com/…****' });
    const selfHosted = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Mattermost',
        channel_type: 'chat',
        config: { webhook_url: 'http://mm.example.com:8065/hooks/secret-path-1' },
      })
      .expect(201);
    expect(selfHosted.body.config).toEqual({ webhook_url: 'http://mm.example.com:8065/…****' });

    const answers: unknown[] = [webhook.body, chat.body, selfHosted.body];
    answers.push((await t.api().get('/api/alert-channels').expect(200)).body);
    for (const id of [webhook.body.id, chat.body.id, selfHosted.body.id]) {
      answers.push((await t.api().get(`/api/alert-channels/${id}`).expect(200)).body);
      answers.push(
        (await t.api().patch(`/api/alert-channels/${id}`).send({ name: 'renamed' }).expect(200)).body,
      );
    }
    answers.forEach(expectNoSecret);
    expect(await stored(webhook.body.id)).toEqual(webhookConfig);
    expect(await stored(chat.body.id)).toEqual(chatConfig);
  });

  it('keeps every stored secret when a PATCH sends the masked config back or leaves secrets out', async () => {
    const webhookConfig = {
      url: 'https://url-user:url-pa55word@hooks.example.com/in?token=qs-token-0123',
      secret: 'whsec_0123456789abcdef',
      headers: { Authorization: 'Bearer bearer-0123456789', 'X-Team': 'ops' },
    };
    const webhook = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Round trip', channel_type: 'webhook', config: webhookConfig })
      .expect(201);
    const id = webhook.body.id as number;

    // The dashboard's edit form: the config as shown, plus one new header.
    const edited = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { ...webhook.body.config, headers: { ...webhook.body.config.headers, 'X-New': 'n' } } })
      .expect(200);
    expectNoSecret(edited.body);
    expect(await stored(id)).toEqual({
      ...webhookConfig,
      headers: { ...webhookConfig.headers, 'X-New': 'n' },
    });

    // Secret fields left out are kept; a header left out of a sent `headers` object is removed.
    const partial = await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({ config: { headers: { Authorization: 'Bear...****' } } })
      .expect(200);
    expectNoSecret(partial.body);
    expect(await stored(id)).toEqual({
      ...webhookConfig,
      headers: { Authorization: 'Bearer bearer-0123456789' },
    });

    // Stored header values only ever go to the host they were written for.
    for (const config of [
      { url: 'https://attacker.example.net/in' },
      { url: 'https://attacker.example.net/in', headers: { Authorization: 'Bear...****' } },
    ]) {
      await t.api().patch(`/api/alert-channels/${id}`).send({ config }).expect(400, {
        error: 'config.headers.Authorization must be sent again when config.url moves to another host',
      });
    }
    expect(await stored(id)).toEqual({
      ...webhookConfig,
      headers: { Authorization: 'Bearer bearer-0123456789' },
    });

    // New values replace the stored ones; null removes an optional one.
    await t
      .api()
      .patch(`/api/alert-channels/${id}`)
      .send({
        config: { url: 'https://other.example.com/in', secret: 'rotated-secret-1', headers: null },
      })
      .expect(200);
    expect(await stored(id)).toEqual({ url: 'https://other.example.com/in', secret: 'rotated-secret-1' });

    const chat = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Round trip chat',
        channel_type: 'chat',
        config: { webhook_url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXX' },
      })
      .expect(201);
    const chatId = chat.body.id as number;
    for (const config of [chat.body.config, {}]) {
      const kept = await t.api().patch(`/api/alert-channels/${chatId}`).send({ config }).expect(200);
      expect(kept.body.config).toEqual({ webhook_url: 'https://hooks.slack.com/…****' });
      expect(await stored(chatId)).toEqual({
        webhook_url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXX',
      });
    }
    await t
      .api()
      .patch(`/api/alert-channels/${chatId}`)
      .send({ config: { webhook_url: 'https://hooks.slack.com/services/T1/B1/Y' } })
      .expect(200);
    expect(await stored(chatId)).toEqual({ webhook_url: 'https://hooks.slack.com/services/T1/B1/Y' });
  });

  it.each([
    [
      'webhook',
      { url: 'https://****:****@elsewhere.example.com/in' },
      'config.url is a masked value: send the new URL, or the masked value unchanged',
    ],
    [
      'webhook',
      { headers: { Authorization: 'Xxxx...****' } },
      'config.headers.Authorization is a masked value: send the new value, or the masked value unchanged',
    ],
    [
      'webhook',
      { headers: { 'X-Unknown': '****' } },
      'config.headers.X-Unknown is a masked value: send the new value, or the masked value unchanged',
    ],
    [
      'chat',
      { webhook_url: 'https://other.slack.com/…****' },
      'config.webhook_url is a masked value: send the new URL, or the masked value unchanged',
    ],
  ])('refuses a masked %s value that is not the stored one: %j', async (type, config, error) => {
    const initial =
      type === 'chat'
        ? { webhook_url: 'https://hooks.slack.com/services/T/B/X' }
        : { url: 'https://u:p@hooks.example.com/in', headers: { Authorization: 'Bearer bearer-0123456789' } };
    const created = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Masked', channel_type: type, config: initial })
      .expect(201);
    await t.api().patch(`/api/alert-channels/${created.body.id}`).send({ config }).expect(400, { error });
    expect(await stored(created.body.id)).toEqual(initial);
  });

  it.each([
    [{ url: 'https://****:****@hooks.example.com/in' }, 'config.url is a masked value: send the URL itself'],
    [
      { url: 'https://hooks.example.com/in', headers: { 'X-Api-Key': 'apik...****' } },
      'config.headers.X-Api-Key is a masked value: send the value itself',
    ],
  ])('refuses masked values in a new webhook: %j', async (config, error) => {
    await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Copied', channel_type: 'webhook', config })
      .expect(400, { error });
  });

  it('refuses a masked chat URL in a new channel', async () => {
    await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'Copied',
        channel_type: 'chat',
        config: { webhook_url: 'https://hooks.slack.com/…****' },
      })
      .expect(400, { error: 'config.webhook_url is a masked value: send the URL itself' });
  });

  describe('the test endpoint', () => {
    /** Answers 500 with every request header echoed, in the body and in the reason phrase. */
    const echo = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const headers = JSON.stringify({ url: req.url, headers: req.headers });
        res.writeHead(500, `Broken ${req.headers.authorization ?? ''} ${req.url ?? ''}`.trim(), {
          'Content-Type': 'application/json',
        });
        res.end(headers);
      });
    });
    let echoUrl: string;

    beforeAll(async () => {
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      echoUrl = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

    it('reports the receiver status, never its body or reason phrase', async () => {
      const webhook = await t
        .api()
        .post('/api/alert-channels')
        .send({
          name: 'Echo',
          channel_type: 'webhook',
          config: {
            url: `http://url-user:url-pa55word@${echoUrl}/in?token=qs-token-0123`,
            secret: 'whsec_0123456789abcdef',
            headers: { Authorization: 'Bearer bearer-0123456789', 'X-Api-Key': 'apikey-abcdef0123456' },
          },
        })
        .expect(201);
      const tested = await t.api().post(`/api/alert-channels/${webhook.body.id}/test`).expect(200);
      expect(tested.body).toEqual({ success: false, message: 'webhook answered 500 Internal Server Error' });

      const chat = await t
        .api()
        .post('/api/alert-channels')
        .send({
          name: 'Echo chat',
          channel_type: 'chat',
          config: { webhook_url: `http://${echoUrl}/hooks/secret-path-1` },
        })
        .expect(201);
      const chatTested = await t.api().post(`/api/alert-channels/${chat.body.id}/test`).expect(200);
      expect(chatTested.body).toEqual({
        success: false,
        message: 'chat webhook answered 500 Internal Server Error',
      });
      expectNoSecret([tested.body, chatTested.body]);
      expectNoSecret((await t.api().get('/api/alert-channels').expect(200)).body);
    });
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
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', headers: { A: 'a\r\nB: c' } } },
      'config.headers.A must be a single-line string',
    ],
    [
      {
        name: 'x',
        channel_type: 'webhook',
        config: { url: 'https://x.io', headers: { A: 'x'.repeat(4097) } },
      },
      'config.headers.A must be a single-line string',
    ],
    [
      { name: 'x', channel_type: 'webhook', config: { url: 'https://x.io', headers: { 'X Team': 'ops' } } },
      'config.headers: "X Team" is not a valid header name',
    ],
    [
      {
        name: 'x',
        channel_type: 'webhook',
        config: { url: 'https://x.io', headers: { 'Content-Length': '1' } },
      },
      'config.headers: Content-Length cannot be set',
    ],
    [
      {
        name: 'x',
        channel_type: 'webhook',
        config: {
          url: 'https://x.io',
          headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])),
        },
      },
      'config.headers may have at most 20 entries',
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
