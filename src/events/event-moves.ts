import type { EntityManager } from 'typeorm';
import { ErrorEvent } from './event.entity';
import { EventsRepository } from './events.repository';

/**
 * Moves every event of the `from` issues to issue `to`, with the parts they share (stack traces,
 * SDK descriptions: stored once per issue and span of days), in the caller's transaction. The
 * statements are EventsRepository.moveToIssue's; this is the merge's way in without injecting it.
 */
export function moveEventsToIssue(manager: EntityManager, from: number[], to: number): Promise<number> {
  return new EventsRepository(manager.getRepository(ErrorEvent)).moveToIssue(manager, from, to);
}
