import type { Request } from 'express';

/** Who made a request: an API token or a signed-in dashboard user. */
export type Principal = { kind: 'token'; tokenId: number } | { kind: 'user'; userId: number };

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
  cookies: Record<string, string | undefined>;
}
