import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
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
export async function startUptimeSites(): Promise<UptimeSites> {
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
          res.statusCode = 307;
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
  close: () => Promise<void>;
}

/** An HTTPS site on 127.0.0.1 with a self-signed certificate valid for `days` (made by the openssl CLI). */
export async function startTlsSite(days: number): Promise<TlsSite> {
  const dir = mkdtempSync(join(tmpdir(), 'uptime-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        String(days),
        '-subj',
        '/CN=127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'));
    const key = readFileSync(join(dir, 'key.pem'));
    const notAfter = execFileSync('openssl', ['x509', '-noout', '-enddate', '-in', join(dir, 'cert.pem')])
      .toString()
      .trim()
      .replace('notAfter=', '');
    const server = https.createServer({ cert, key }, (_req, res) => res.end('secure and healthy'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      expiresAt: new Date(notAfter),
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
