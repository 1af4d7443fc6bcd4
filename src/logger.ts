import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger, Params } from 'nestjs-pino';
import type { ResolvedConfig } from './config/environment';

/** Hot or noisy paths whose successful requests are not worth a log line each. */
const QUIET_PATHS = /^\/(health|api\/\d+\/(envelope|store)\/?)(\/|\?|$)/;

export function loggerOptions(config: ResolvedConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      autoLogging: {
        ignore: (request: IncomingMessage) => QUIET_PATHS.test(request.url ?? ''),
      },
      customLogLevel: (_request: IncomingMessage, response: ServerResponse, error?: Error) => {
        if (error || response.statusCode >= 500) return 'error';
        if (response.statusCode >= 400) return 'warn';
        return 'debug';
      },
      serializers: {
        req: (request: { method: string; url: string; id: unknown }) => ({
          id: request.id,
          method: request.method,
          url: request.url.replace(/sentry_key=[^&]+/, 'sentry_key=[redacted]'),
        }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
    },
  };
}

/** Nest's boot chatter (one line per module and route) is debug material, not "an event of interest". */
const BOOT_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

export class AppLogger extends Logger {
  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && BOOT_CONTEXTS.has(context)) {
      super.debug(message, ...optionalParams);
    } else {
      super.log(message, ...optionalParams);
    }
  }
}
