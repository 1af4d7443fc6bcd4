import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A valid pair stays cached this long: a deleted project (or a rotated key) stops working within it. */
export const PROJECT_KEY_TTL_MS = 30_000;
/** Unknown pairs are remembered more briefly, so a just-created project works almost at once. */
export const PROJECT_KEY_NEGATIVE_TTL_MS = 5_000;
/** Random keys must not grow the cache without bound. */
const MAX_ENTRIES = 10_000;

interface Entry {
  valid: boolean;
  expires: number;
}

/**
 * Answers "does project <id> have client key <key>?" with a short in-process cache in front of
 * PostgreSQL. Nothing else depends on the cache; losing it only costs one query per pair.
 */
@Injectable()
export class ProjectKeys {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly dataSource: DataSource) {}

  /** `key` is the canonical dashed UUID. Cache hits answer synchronously. */
  isValid(projectId: number, key: string): boolean | Promise<boolean> {
    const cacheKey = `${projectId}:${key}`;
    const entry = this.cache.get(cacheKey);
    if (entry !== undefined && entry.expires > Date.now()) return entry.valid;
    let lookup = this.inFlight.get(cacheKey);
    if (lookup === undefined) {
      lookup = this.lookup(projectId, key).then(
        (valid) => {
          this.inFlight.delete(cacheKey);
          if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
          this.cache.set(cacheKey, {
            valid,
            expires: Date.now() + (valid ? PROJECT_KEY_TTL_MS : PROJECT_KEY_NEGATIVE_TTL_MS),
          });
          return valid;
        },
        (error: unknown) => {
          this.inFlight.delete(cacheKey);
          throw error;
        },
      );
      this.inFlight.set(cacheKey, lookup);
    }
    return lookup;
  }

  private async lookup(projectId: number, key: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM projects WHERE id = $1 AND client_key = $2',
      [projectId, key],
    );
    return rows.length > 0;
  }
}
