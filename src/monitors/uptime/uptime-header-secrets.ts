import { InvalidInputError } from '../../common/domain-errors';
import { looksMasked, originOf, restoreHeaders } from '../../common/secret-mask';

/**
 * A monitor's header values are write-only, as channel secrets are (any header may carry a
 * credential): every answer shows them masked, and a client that edits a monitor can only send back
 * what it was shown. Pure rules, for the service.
 */

/** For a new monitor: a masked-looking value is a copy of another monitor's view, not a value. */
export function rejectMaskedHeaders(submitted: Record<string, unknown> | undefined): void {
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
