import { Client } from 'pg';
import { testDatabaseUrl } from './helpers/test-env';

interface UncoveredForeignKey {
  constraint: string;
  table: string;
  columns: string[];
  on_delete: string;
}

/**
 * Foreign keys of the public schema with no valid index (whole, or partial on the key being set)
 * whose leading columns are exactly the referencing columns (in any order). Without one, deleting a referenced row
 * (ON DELETE CASCADE / SET NULL, or the check of NO ACTION) scans the whole referencing table.
 */
const UNCOVERED_FOREIGN_KEYS = `
  SELECT c.conname AS constraint,
         c.conrelid::regclass::text AS table,
         ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, position)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
                ORDER BY k.position) AS columns,
         CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
                            WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END AS on_delete
    FROM pg_constraint c
   WHERE c.contype = 'f'
     AND c.connamespace = 'public'::regnamespace
     AND NOT EXISTS (
       SELECT 1 FROM pg_index i
        WHERE i.indrelid = c.conrelid
          AND i.indisvalid
          -- Whole, or partial on "col IS NOT NULL" for a one-column key: rows whose key is null
          -- are never looked up when the referenced row goes.
          AND (i.indpred IS NULL
               OR (cardinality(c.conkey) = 1
                   AND pg_get_expr(i.indpred, i.indrelid) = format('(%I IS NOT NULL)',
                     (SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = c.conkey[1]))))
          AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
          AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
   ORDER BY 2, 1`;

describe('database schema', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: testDatabaseUrl() });
    await db.connect();
  });
  afterAll(() => db.end());

  it('indexes the referencing columns of every foreign key', async () => {
    const { rows: foreignKeys } = await db.query<{ table: string; on_delete: string }>(
      `SELECT conrelid::regclass::text AS table,
              CASE confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'other' END AS on_delete
         FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
    );
    // The migrations ran: the check below has something to look at.
    expect(
      foreignKeys
        .filter((fk) => fk.table === 'alert_history')
        .map((fk) => fk.on_delete)
        .sort(),
    ).toEqual(['CASCADE', 'SET NULL', 'SET NULL', 'SET NULL']);
    const { rows } = await db.query<UncoveredForeignKey>(UNCOVERED_FOREIGN_KEYS);
    expect(rows).toEqual([]);
  });

  it('notices a foreign key without an index, and accepts one with a matching index', async () => {
    await db.query('BEGIN');
    try {
      await db.query(`
        CREATE TABLE fk_probe (
          id serial PRIMARY KEY,
          project_id int NOT NULL,
          issue_id int REFERENCES issues(id) ON DELETE SET NULL,
          FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE
        );
        CREATE INDEX fk_probe_partial_idx ON fk_probe (issue_id) WHERE issue_id > 10;
        CREATE INDEX fk_probe_second_column_idx ON fk_probe (id, project_id);
      `);
      const { rows } = await db.query<UncoveredForeignKey>(UNCOVERED_FOREIGN_KEYS);
      expect(rows.filter((row) => row.table === 'fk_probe')).toEqual([
        {
          constraint: 'fk_probe_issue_id_fkey',
          table: 'fk_probe',
          columns: ['issue_id'],
          on_delete: 'SET NULL',
        },
        {
          constraint: 'fk_probe_project_id_fkey',
          table: 'fk_probe',
          columns: ['project_id'],
          on_delete: 'CASCADE',
        },
      ]);

      await db.query('CREATE INDEX ON fk_probe (issue_id, id); CREATE INDEX ON fk_probe (project_id)');
      const after = await db.query<UncoveredForeignKey>(UNCOVERED_FOREIGN_KEYS);
      expect(after.rows.filter((row) => row.table === 'fk_probe')).toEqual([]);
    } finally {
      await db.query('ROLLBACK');
    }
  });
});
