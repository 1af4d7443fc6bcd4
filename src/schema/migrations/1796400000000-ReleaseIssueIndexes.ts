import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The issue searches a release page makes, `first_release:` and `resolved_in:`, served by indexes
 * like every other filter of the issue search (see IssueSearch1795600000000). Partial: most issues
 * of a busy project are resolved in no release, and some have no release at all.
 */
export class ReleaseIssueIndexes1796400000000 implements MigrationInterface {
  name = 'ReleaseIssueIndexes1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX IF NOT EXISTS issues_project_first_release_idx ON issues (project_id, first_release)
        WHERE first_release IS NOT NULL;
      CREATE INDEX IF NOT EXISTS issues_project_resolved_in_idx ON issues (project_id, resolved_in, resolved_above)
        WHERE resolved_in IS NOT NULL;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP INDEX IF EXISTS issues_project_first_release_idx; DROP INDEX IF EXISTS issues_project_resolved_in_idx',
    );
  }
}
