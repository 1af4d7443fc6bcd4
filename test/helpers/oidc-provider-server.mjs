// A real OpenID Connect provider (the oidc-provider package) for the single sign-on tests, run in
// a process of its own (the package is an ES module). Configuration comes as JSON in
// OIDC_TEST_CONFIG: { clients: [{ client_id, client_secret, redirect_uris }], accounts: { id: claims } }.
// It prints {"issuer": "..."} on its first line of output once it listens on a free loopback port.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG ?? '{}');
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: config.clients.map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...client,
  })),
  pkce: { required: () => true },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  async findAccount(_ctx, id) {
    const claims = config.accounts[id];
    if (!claims) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
  },
  // The built-in login and consent pages: any account id as the login, any password.
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['oidc-test-cookie-key'] },
});
// Plain http on loopback: tell the provider not to insist on TLS for its cookies.
provider.proxy = true;
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
