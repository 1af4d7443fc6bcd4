import { InvalidInputError } from '../../common/domain-errors';
import type { PersonMatch } from '../../events/events.repository';

/** Longer than any user id, e-mail, username or IP address an event's `user` tag keeps. */
export const MAX_IDENTIFIER_LENGTH = 1_000;

/** The `user` tag's prefixes (see userTagValue) and the payload field each names. */
const PREFIXES: Record<string, NonNullable<PersonMatch['field']>> = {
  id: 'id',
  email: 'email',
  username: 'username',
  ip: 'ip_address',
};

/**
 * Who to erase: `id:…`, `email:…`, `username:…` or `ip:…` (the `user` tag's spelling) names one
 * field of the events' user; a bare value matches any of the four. E-mail addresses match in any
 * case, the rest exactly. An empty identifier is refused.
 */
export function parsePersonIdentifier(raw: string): PersonMatch {
  const text = raw.trim();
  if (text === '')
    throw new InvalidInputError('the identifier is empty: give a user id, e-mail, username or IP address');
  if (text.length > MAX_IDENTIFIER_LENGTH) {
    throw new InvalidInputError(`the identifier is longer than ${MAX_IDENTIFIER_LENGTH} characters`);
  }
  const match = /^(id|email|username|ip):(.*)$/s.exec(text);
  if (!match) return { field: null, value: text };
  const value = match[2].trim();
  if (value === '') throw new InvalidInputError(`the identifier "${match[1]}:" names no value`);
  return { field: PREFIXES[match[1]], value };
}

/** The e-mail address the identifier may be (feedback is matched by it too). */
export function emailOf(match: PersonMatch): string | null {
  if (match.field === 'email' || (match.field === null && match.value.includes('@'))) return match.value;
  return null;
}
