import type { Request } from 'express';
import type { Access } from '../access/access';

/** Who made a request: an API token or a signed-in dashboard user. */
export type Principal = { kind: 'token'; tokenId: number } | { kind: 'user'; userId: number };

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
  /** What the principal may do and see (set with it by the guard). */
  access?: Access;
  cookies: Record<string, string | undefined>;
}
