import { Inject, Injectable, Logger, Module, NestMiddleware, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import express, { NextFunction, Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config';
import { noSniff, setDashboardSecurityHeaders } from './security-headers';

/**
 * Where `npm run build:dashboard` (Vite) writes the dashboard. Resolved from this file so it works
 * both compiled (dist/web → dist/dashboard) and from sources under ts-node/ts-jest (src/web → dist/dashboard).
 * (This module lives in src/web, not src/dashboard, because `nest build` would emit src/dashboard into
 * dist/dashboard, where Vite's output goes.)
 */
export const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'dashboard');

export const DASHBOARD_DIR_TOKEN = 'DASHBOARD_DIR';

/** Paths that belong to the server: never answered with the dashboard's index.html. */
const SERVER_PATH = /^\/(api|auth|health|metrics)(\/|$)/;

/** Vite puts content-hashed files under assets/: they can be cached for good. */
const HASHED_ASSET = /^\/assets\//;
/** Page paths that may end like a file name: a release's page (`/projects/3/releases/shop%401.2.0`). */
const PAGE_LIKE_A_FILE = /^\/projects\/[^/]+\/releases\/[^/]+\/?$/;

export const MISSING_BUILD_MESSAGE =
  'The dashboard has not been built. Run `npm run build` (or `npm run build:dashboard`) and reload this page.\n' +
  'The API is available under /api (documentation at /api/docs).\n';

/**
 * Serves the single-page dashboard: static files from the build output, and index.html for any
 * other GET of a page path (client-side routing with clean URLs). API, auth, health and metrics
 * paths are left alone, so an unknown /api path still answers a JSON 404.
 */
@Injectable()
export class DashboardMiddleware implements NestMiddleware {
  private readonly root: string;
  private readonly serveStatic: ReturnType<typeof express.static>;

  constructor(@Inject(DASHBOARD_DIR_TOKEN) root: string) {
    this.root = root;
    this.serveStatic = express.static(root, {
      index: false,
      fallthrough: true,
      redirect: false,
      setHeaders: (response, filePath) => {
        setDashboardSecurityHeaders(response);
        const relative = filePath.slice(root.length).replace(/\\/g, '/');
        if (HASHED_ASSET.test(relative)) {
          response.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        } else if (relative.endsWith('.html')) {
          response.setHeader('Cache-Control', 'no-cache');
        } else {
          response.setHeader('Cache-Control', 'public, max-age=3600');
        }
      },
    });
  }

  use(request: Request, response: Response, next: NextFunction): void {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || SERVER_PATH.test(request.path)) {
      return next();
    }
    if (request.path === '/index.html') return this.sendIndex(response, next);
    this.serveStatic(request, response, (error?: unknown) => {
      if (error) return next(error);
      // A missing file with an extension (an old asset, /favicon.ico) is a real 404, not a page.
      if (
        /\.[a-z0-9]+$/i.test(request.path) &&
        !request.path.endsWith('.html') &&
        !PAGE_LIKE_A_FILE.test(request.path)
      )
        return next();
      this.sendIndex(response, next);
    });
  }

  private sendIndex(response: Response, next: NextFunction): void {
    setDashboardSecurityHeaders(response);
    const index = join(this.root, 'index.html');
    if (!existsSync(index)) {
      response
        .status(503)
        .type('text/plain')
        .setHeader('Cache-Control', 'no-store')
        .send(MISSING_BUILD_MESSAGE);
      return;
    }
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(index, (error?: Error) => {
      if (error && !response.headersSent) next(error);
    });
  }
}

/**
 * Part of the API role. Does nothing when SERVE_DASHBOARD is off (API-only deployments).
 * The handler is added in onModuleInit, which Nest runs after it has mounted every controller route
 * and before its own "not found" handler: the dashboard is the fallback, it never shadows a route.
 *
 * The header every answer carries is added at construction instead: Nest builds its modules in
 * NestFactory.create, before createHttpApp adds the JSON body parser, so even the answer to a
 * malformed body (which never reaches Nest's middleware) carries it.
 */
@Module({
  providers: [{ provide: DASHBOARD_DIR_TOKEN, useValue: DASHBOARD_DIR }, DashboardMiddleware],
})
export class DashboardModule implements OnModuleInit {
  private readonly logger = new Logger('Dashboard');

  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly middleware: DashboardMiddleware,
  ) {
    const adapter = adapterHost.httpAdapter;
    if (adapter?.getType() === 'express') adapter.use(noSniff);
  }

  onModuleInit(): void {
    if (!this.config.SERVE_DASHBOARD) return;
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    adapter.use((request: Request, response: Response, next: NextFunction) =>
      this.middleware.use(request, response, next),
    );
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      this.logger.warn(`dashboard not built (${DASHBOARD_DIR} is missing): run \`npm run build\``);
    }
  }
}
