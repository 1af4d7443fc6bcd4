import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import tls from 'node:tls';
import { join } from 'node:path';

/** What a site behind uptime checks answers; `state` lets a test flip it between checks. */
export interface UptimeSites {
  url: string;
  /** What /flaky answers: 200 when true, 503 when false. */
  state: { up: boolean };
  /** Requests received per path, in order, with their method, headers and body. */
  requests: { path: string; method: string; headers: http.IncomingHttpHeaders; body: string }[];
  /** Bytes /huge wrote before the client went away. */
  hugeBytesSent: () => number;
  close: () => Promise<void>;
}

const HUGE_BYTES = 64 * 1024 * 1024;

/**
 * A local site on 127.0.0.1 with the pages uptime checks meet: healthy, slow, failing, hanging,
 * redirecting (to itself, in chains, anywhere), huge.
 */
export async function startUptimeSites(host = '127.0.0.1'): Promise<UptimeSites> {
  const state = { up: true };
  const requests: UptimeSites['requests'] = [];
  const sockets = new Set<Socket>();
  let hugeSent = 0;
  let base = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: url.pathname,
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const [, route, arg] = url.pathname.split('/');
      switch (route) {
        case 'ok':
          return res.end('all systems healthy');
        case 'flaky':
          res.statusCode = state.up ? 200 : 503;
          return res.end(state.up ? 'healthy' : 'down for maintenance');
        case 'status':
          res.statusCode = Number(arg);
          return res.end(`answered ${arg}`);
        case 'slow':
          return void setTimeout(() => res.end('slow but healthy'), Number(arg));
        case 'hang':
          return; // never answers
        case 'redirect':
          // /redirect/3 → /redirect/2 → /redirect/1 → /redirect/0 → /ok
          res.statusCode = 302;
          res.setHeader('Location', Number(arg) > 0 ? `/redirect/${Number(arg) - 1}` : '/ok');
          return res.end();
        case 'loop':
          res.statusCode = 301;
          res.setHeader('Location', '/loop');
          return res.end();
        case 'to':
          res.statusCode = Number(url.searchParams.get('status') ?? 307);
          res.setHeader('Location', url.searchParams.get('url') ?? '/ok');
          return res.end();
        case 'echo':
          return res.end(
            JSON.stringify({
              method: req.method,
              headers: req.headers,
              body: Buffer.concat(chunks).toString(),
            }),
          );
        case 'huge':
          return sendHuge(res, (bytes) => (hugeSent = bytes));
        default:
          res.statusCode = 404;
          return res.end('not found');
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    state,
    requests,
    hugeBytesSent: () => hugeSent,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** 64 MiB of filler, the word "healthy" only at its end, written as fast as the client reads. */
function sendHuge(res: http.ServerResponse, progress: (bytes: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  const write = () => {
    while (sent < HUGE_BYTES) {
      sent += chunk.length;
      progress(sent);
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end('healthy');
  };
  res.on('close', () => progress(sent));
  write();
}

export interface TlsSite {
  url: string;
  /** The certificate's notAfter, as openssl wrote it. */
  expiresAt: Date;
  /** The certificate authority that signed it (PEM), or null for a self-signed certificate. */
  ca: string | null;
  /** Bytes of requests received, after the TLS handshake: headers and body. */
  bytesReceived: () => number;
  close: () => Promise<void>;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/**
 * An HTTPS site on 127.0.0.1 whose certificate is valid for `days` (made by the openssl CLI):
 * self-signed, or signed by a certificate authority of its own that a checker may be told to trust.
 * It counts every byte of request it receives and answers each request with 200.
 */
export async function startTlsSite(days: number, signer: 'self' | 'ca' = 'self'): Promise<TlsSite> {
  const dir = mkdtempSync(join(tmpdir(), 'uptime-tls-'));
  try {
    const key = ['-newkey', 'rsa:2048', '-nodes', '-sha256'];
    let ca: string | null = null;
    if (signer === 'self') {
      openssl(dir, [
        'req',
        '-x509',
        ...key,
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
        '-days',
        String(days),
        '-subj',
        '/CN=127.0.0.1',
      ]);
    } else {
      openssl(dir, [
        'req',
        '-x509',
        ...key,
        '-keyout',
        'ca.key',
        '-out',
        'ca.pem',
        '-days',
        '30',
        '-subj',
        '/CN=Uptime test CA',
      ]);
      openssl(dir, ['req', ...key, '-keyout', 'key.pem', '-out', 'site.csr', '-subj', '/CN=127.0.0.1']);
      writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        'site.csr',
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'cert.pem',
        '-days',
        String(days),
        '-extfile',
        'san.cnf',
      ]);
      ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    }
    const cert = readFileSync(join(dir, 'cert.pem'));
    const privateKey = readFileSync(join(dir, 'key.pem'));
    const notAfter = openssl(dir, ['x509', '-noout', '-enddate', '-in', 'cert.pem'])
      .toString()
      .trim()
      .replace('notAfter=', '');
    let received = 0;
    const sockets = new Set<Socket>();
    // Plain TLS under a minimal HTTP answer, so that every byte that arrives is counted.
    const server = tls.createServer({ cert, key: privateKey }, (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (!chunk.includes('\r\n\r\n')) return;
        const body = 'secure and healthy';
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      });
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      expiresAt: new Date(notAfter),
      ca,
      bytesReceived: () => received,
      close: () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
