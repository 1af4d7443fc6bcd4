/**
 * An Express app instrumented by @sentry/node with `sendDefaultPii: true`, for the scrubbing tests:
 * its login form handler fails, so the SDK sends the request as frameworks do (form body, cookies,
 * headers, query string). Run as a child process: `node node-login-app.js <dsn>`; it tells its
 * parent its port over IPC, and on `exit` flushes and stops.
 */
'use strict';
const Sentry = require('@sentry/node');

Sentry.init({ dsn: process.argv[2], sendDefaultPii: true, tracesSampleRate: 0, environment: 'login-e2e' });

// Required after init, so that the SDK's instrumentation sees it.
const express = require('express');

const app = express();
app.use(express.urlencoded({ extended: false }));
app.post('/login', (request) => {
  throw new Error(`login failed for ${request.body.username}`);
});
Sentry.setupExpressErrorHandler(app);
app.use((error, _request, response, _next) => response.status(500).send('failed'));

const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));

process.on('message', async (message) => {
  if (message === 'exit') {
    await Sentry.flush(5_000);
    server.close();
    process.disconnect();
  }
});
