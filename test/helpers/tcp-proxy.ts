import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { testDatabaseUrl } from './test-env';

export interface TcpProxy {
  port: number;
  /** Closes the listener and every relayed connection: the target looks gone. */
  cut: () => Promise<void>;
  /** Listens again on the same port (nothing happens when it still listens). */
  restore: () => Promise<void>;
  /**
   * The target hangs: connections stay open and new ones are accepted, but nothing is relayed
   * either way (a stuck server, a half-open connection). `thaw` relays again.
   */
  freeze: () => void;
  thaw: () => void;
}

/** A TCP relay to a local service that a test can cut and restore, to simulate an outage. */
export async function startProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        const pair: [Socket, Socket] = [client, upstream];
        pairs.add(pair);
        client.on('close', () => pairs.delete(pair));
        if (!frozen) client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    cut: async () => {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: async () => {
      if (!server.listening) await listen(port);
    },
    // Each is a no-op when already in that state: piping a pair twice would relay every byte twice.
    freeze: () => {
      if (frozen) return;
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      if (!frozen) return;
      frozen = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.resume();
      }
    },
  };
}

/** The test database's URL, but reached through a proxy that the test controls. */
export async function proxiedTestDatabase(): Promise<{ url: string; proxy: TcpProxy }> {
  const url = new URL(testDatabaseUrl());
  const proxy = await startProxy(Number(url.port || 5432));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}
