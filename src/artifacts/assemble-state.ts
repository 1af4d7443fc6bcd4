import type { AssembleAnswer, AssembleState } from './dto/upload.response';

/**
 * The answers of the artifact-bundle assemble call, which sentry-cli makes twice or more with the
 * same body: first to learn which chunks it must upload (`missingChunks`), then to have them put
 * together (and, with `--wait`, again every second until `ok` or `error`). Assembly happens within
 * the call that finds every chunk, so this server never answers `created` or `assembling`.
 */
export type { AssembleAnswer, AssembleState };

export type AssembleStep = { kind: 'answer'; answer: AssembleAnswer } | { kind: 'assemble' };

/** What to do with an assemble request, given the chunks stored and whether this upload was assembled. */
export function assembleStep(
  request: { chunks: string[] },
  stored: ReadonlySet<string>,
  assembled: boolean,
): AssembleStep {
  // An upload assembled before needs nothing more, even once its chunks have expired.
  if (assembled) return { kind: 'answer', answer: ok() };
  if (request.chunks.length === 0) return { kind: 'answer', answer: failed('the upload names no chunks') };
  const missing = [...new Set(request.chunks.filter((chunk) => !stored.has(chunk)))];
  if (missing.length > 0)
    return { kind: 'answer', answer: { state: 'not_found', missingChunks: missing, detail: null } };
  return { kind: 'assemble' };
}

export function ok(): AssembleAnswer {
  return { state: 'ok', missingChunks: [], detail: null };
}

export function failed(detail: string): AssembleAnswer {
  return { state: 'error', missingChunks: [], detail };
}
