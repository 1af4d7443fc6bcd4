import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { startProxy, TcpProxy } from './helpers/tcp-proxy';

/** The outage proxy other tests rely on: a fault it adds by itself would be blamed on the server. */
describe('the test TCP proxy', () => {
  let echo: Server;
  let proxy: TcpProxy;

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    proxy = await startProxy((echo.address() as AddressInfo).port);
  });
  afterAll(async () => {
    await proxy.cut();
    await new Promise((resolve) => echo.close(resolve));
  });

  async function received(socket: Socket, bytes: number): Promise<string> {
    let text = '';
    return new Promise((resolve) => {
      const onData = (chunk: Buffer) => {
        text += chunk.toString();
        if (text.length >= bytes) {
          socket.off('data', onData);
          // Anything relayed twice would arrive right behind the first copy.
          setTimeout(() => resolve(text), 100);
        }
      };
      socket.on('data', onData);
    });
  }

  it('relays each byte once after being frozen and thawed more than once', async () => {
    const client = connect(proxy.port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    let all = '';
    client.on('data', (chunk) => (all += chunk.toString()));
    try {
      client.write('before;');
      await received(client, 'before;'.length);
      proxy.freeze();
      proxy.freeze();
      client.write('held;');
      proxy.thaw();
      proxy.thaw();
      await received(client, 'held;'.length);
      client.write('after;');
      await received(client, 'after;'.length);
      expect(all).toBe('before;held;after;');
    } finally {
      client.destroy();
    }
  });
});
