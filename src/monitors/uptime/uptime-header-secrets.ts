import { InvalidInputError } from '../../common/domain-errors';
import { looksMasked, maskSecret, originOf, restoreHeaders } from '../../common/secret-mask';

/**
 * A monitor's header values and request body are write-only, as channel secrets are (any header
 * may carry a credential, and a body a token or a password): every answer shows them masked, and a
 * client that edits a monitor can only send back what it was shown. Pure rules, for the service.
 */

/** For a new monitor: a masked-looking value is a copy of another monitor's view, not a value. */
export function rejectMaskedHeaders(
  submitted: Record<string, unknown> | undefined,
  body?: string | null,
): void {
  if (typeof body === 'string' && looksMasked(body)) {
    throw new InvalidInputError('body is a masked value: send the body itself');
  }
  for (const [name, value] of Object.entries(submitted ?? {})) {
    if (typeof value === 'string' && looksMasked(value)) {
      throw new InvalidInputError(`headers.${name} is a masked value: send the value itself`);
    }
  }
}

/**
 * The headers to store after a change. Left out: the stored ones are kept. Sent: each value that is
 * the mask of the stored header of the same name keeps the stored value, another masked-looking
 * value is refused, anything else replaces it, and a stored header left out of the object is
 * removed. Stored values travel in clear to the URL: they are kept only while the URL stays on the
 * same origin, so that one change cannot send them to a host of the editor's choosing.
 */
export function restoreMaskedHeaders(
  submitted: Record<string, unknown> | undefined,
  stored: Record<string, string>,
  url: string,
  storedUrl: string,
): Record<string, unknown> {
  const { headers, kept } =
    submitted === undefined
      ? { headers: stored as Record<string, unknown>, kept: Object.keys(stored) }
      : restoreHeaders(
          submitted,
          stored,
          (name) =>
            new InvalidInputError(
              `headers.${name} is a masked value: send the new value, or the masked value unchanged`,
            ),
        );
  const origin = originOf(url);
  if (kept.length > 0 && origin !== undefined && origin !== originOf(storedUrl)) {
    throw new InvalidInputError(`headers.${kept[0]} must be sent again when url moves to another origin`);
  }
  return headers;
}

/** The body as answers show it: masked, as header values are; null stays null (no body). */
export function maskBody(body: string | null): string | null {
  return body === null ? null : maskSecret(body);
}

/**
 * The body to store after a change: left out, or sent back as the mask of the stored body, it is
 * kept (while the URL stays on the same origin, as for headers); another masked-looking value is
 * refused; anything else, null included, replaces it.
 */
export function restoreMaskedBody(
  submitted: string | null | undefined,
  stored: string | null,
  url: string,
  storedUrl: string,
): string | null {
  if (submitted === null) return null;
  // The body follows the headers' rule, as a header of its own.
  const { headers, kept } =
    submitted === undefined
      ? { headers: { body: stored }, kept: stored === null ? [] : ['body'] }
      : restoreHeaders(
          { body: submitted },
          stored === null ? {} : { body: stored },
          () =>
            new InvalidInputError('body is a masked value: send the new body, or the masked value unchanged'),
        );
  const origin = originOf(url);
  if (kept.length > 0 && origin !== undefined && origin !== originOf(storedUrl)) {
    throw new InvalidInputError('body must be sent again when url moves to another origin');
  }
  return headers.body as string | null;
}
