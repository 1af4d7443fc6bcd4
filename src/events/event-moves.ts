import type { EntityManager } from 'typeorm';

/**
 * Moves every event of the `from` issues to issue `to`, with the parts they share (stack traces,
 * SDK descriptions: stored once per issue and span of days). Events first, then their parts: the
 * order in which everything else locks these tables (see IssueStoreService.insertEvents).
 */
export async function moveEventsToIssue(manager: EntityManager, from: number[], to: number): Promise<number> {
  const [, moved] = (await manager.query('UPDATE events SET issue_id = $2 WHERE issue_id = ANY($1::int[])', [
    from,
    to,
  ])) as [unknown, number];
  await manager.query(
    `INSERT INTO event_parts (issue_id, hash, day, content)
     SELECT $2, hash, day, content FROM event_parts WHERE issue_id = ANY($1::int[])
     ORDER BY hash, day
     ON CONFLICT DO NOTHING`,
    [from, to],
  );
  await manager.query('DELETE FROM event_parts WHERE issue_id = ANY($1::int[])', [from]);
  return moved;
}
