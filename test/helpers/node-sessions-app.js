/**
 * A small HTTP service instrumented by @sentry/node, for the release health tests: it sends its
 * request sessions as aggregates (flushed every 300 ms instead of every minute) and its process
 * session. Run as a child process: `node node-sessions-app.js <dsn> <release>`; it tells its parent
 * its port over IPC, serves `/ok` (200) and `/error` (an error captured, 500), captures one error
 * outside any request when told `error`, and on `exit` flushes and ends its process session.
 */
'use strict';
const Sentry = require('@sentry/node');
const http = require('node:http');

const [dsn, release] = process.argv.slice(2);
Sentry.init({
  dsn,
  release,
  environment: 'node-e2e',
  tracesSampleRate: 0,
  integrations: [Sentry.httpIntegration({ sessionFlushingDelayMS: 300 })],
});

const server = http.createServer((request, response) => {
  if (request.url === '/error') {
    Sentry.captureException(new Error('request failed'));
    response.writeHead(500).end('failed');
    return;
  }
  response.writeHead(200).end('ok');
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));

process.on('message', async (message) => {
  if (message === 'error') {
    Sentry.captureException(new Error('outside any request'));
    await Sentry.flush(5_000);
    process.send({ captured: true });
  } else if (message === 'exit') {
    // Past the aggregate flush delay, so that every request session has been sent.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await Sentry.flush(5_000);
    server.close();
    process.disconnect();
    // The process session ends on beforeExit: the event loop empties once the server is closed.
  }
});
