import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Makes the digest's rollup updates HOT (heap-only) updates, which write no index entries.
 *
 * The digest adds to a tag value's count with every batch; the index that serves "the most frequent
 * values" held the count itself, so every such update wrote a new entry into both of the table's
 * indexes. That index now holds `count_bucket`, the count on a coarse scale: exact up to 16, then
 * steps of 25%. A value's bucket changes a few dozen times in its life, its count once per batch,
 * so nearly every update leaves the indexed columns as they were. Ordering by (bucket, count) is
 * ordering by count, because the bucket grows with the count: reads walk the index by bucket and
 * sort exactly only within the buckets they reach.
 *
 * The rollup tables leave a fifth of each page free, room for the new versions of its rows that HOT
 * needs (it only applies when the new version fits on the same page): `issue_tag_values` is
 * rewritten here with it; the other tables apply it to the pages they write from now on.
 */
export class HotTagCounts1795500000000 implements MigrationInterface {
  name = 'HotTagCounts1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION tag_count_bucket(count int) RETURNS smallint
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT CASE WHEN count <= 16 THEN count ELSE 16 + floor(ln(count / 16.0) / ln(1.25))::int END $$;

      ALTER TABLE issue_tag_values SET (fillfactor = 80);
      ALTER TABLE issue_tag_keys SET (fillfactor = 80);
      ALTER TABLE issue_hourly SET (fillfactor = 80);
      ALTER TABLE project_hourly SET (fillfactor = 80);

      DROP INDEX issue_tag_values_top_idx;
      -- Rewrites the table, with the new fillfactor.
      ALTER TABLE issue_tag_values
        ADD COLUMN count_bucket smallint GENERATED ALWAYS AS (tag_count_bucket(count)) STORED;
      CREATE INDEX issue_tag_values_top_idx ON issue_tag_values (issue_id, key, count_bucket DESC, value);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX issue_tag_values_top_idx;
      ALTER TABLE issue_tag_values DROP COLUMN count_bucket;
      DROP FUNCTION tag_count_bucket(int);
      ALTER TABLE issue_tag_values RESET (fillfactor);
      ALTER TABLE issue_tag_keys RESET (fillfactor);
      ALTER TABLE issue_hourly RESET (fillfactor);
      ALTER TABLE project_hourly RESET (fillfactor);
      CREATE INDEX issue_tag_values_top_idx ON issue_tag_values (issue_id, key, count DESC, value);
    `);
  }
}
