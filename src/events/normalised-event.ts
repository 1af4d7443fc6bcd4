/** The one shape the tracker stores and serves an event in, whatever shape its SDK sent it in. */

export interface StackFrame {
  filename?: string;
  abs_path?: string;
  function?: string;
  module?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
  vars?: Record<string, unknown>;
}

export interface ExceptionValue {
  type: string | null;
  value: string | null;
  module?: string;
  mechanism?: Record<string, unknown>;
  stacktrace?: { frames: StackFrame[] };
  /** The frames as the SDK sent them, when source maps changed `stacktrace` (Sentry's name). */
  raw_stacktrace?: { frames: StackFrame[] };
}

/** A source map the SDK says a file was built with: its URL and debug id (`debug_meta.images`). */
export interface SourceMapImage {
  type: 'sourcemap';
  code_file: string;
  debug_id: string;
}

/** Why processing left part of an event as it was (Sentry's `errors`), e.g. no source map found. */
export interface ProcessingError {
  type: string;
  /** The file it is about. */
  url?: string;
  debug_id?: string;
  /** In words, for the event page. */
  detail: string;
}

export interface Breadcrumb {
  timestamp: string | null;
  type?: string;
  category?: string;
  level?: string;
  message?: string;
  data?: Record<string, unknown>;
}

/**
 * A value the digest replaced by `[Filtered]` before storing the event: where it was and which rule
 * matched (see src/privacy/scrubbing/scrub-rules.ts). The value itself is never kept.
 */
export interface ScrubbedValue {
  path: string;
  rule: string;
}

export interface NormalisedEvent {
  event_id: string;
  timestamp: string;
  level: string;
  platform: string | null;
  logger: string | null;
  server_name: string | null;
  release: string | null;
  dist: string | null;
  environment: string | null;
  transaction: string | null;
  /** Formatted message (captureMessage, logentry) or null. */
  message: string | null;
  exception: { values: ExceptionValue[] } | null;
  breadcrumbs: { values: Breadcrumb[] };
  tags: Record<string, string>;
  contexts: Record<string, unknown>;
  request: Record<string, unknown> | null;
  user: {
    id?: string;
    email?: string;
    username?: string;
    ip_address?: string;
    [key: string]: unknown;
  } | null;
  sdk: { name?: string; version?: string; [key: string]: unknown } | null;
  extra: Record<string, unknown>;
  fingerprint: string[] | null;
  /** Only when the SDK sent source map images (browser and bundled JavaScript SDKs). */
  debug_meta?: { images: SourceMapImage[] };
  /** Only when processing had something to say (see ProcessingError). */
  errors?: ProcessingError[];
  /** Only when scrubbing replaced something (see ScrubbedValue). */
  scrubbed?: ScrubbedValue[];
}
