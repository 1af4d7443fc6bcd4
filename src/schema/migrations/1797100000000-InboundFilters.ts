import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project's inbound filters (docs/data-protection.md#inbound-filters): events ingest drops before
 * they are queued. A project without a row filters nothing; only projects that turn a filter on get
 * one.
 */
export class InboundFilters1797100000000 implements MigrationInterface {
  name = 'InboundFilters1797100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE project_inbound_filters (
        project_id int PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        browser_extensions boolean NOT NULL DEFAULT false,
        localhost boolean NOT NULL DEFAULT false,
        web_crawlers boolean NOT NULL DEFAULT false,
        legacy_browsers text[] NOT NULL DEFAULT '{}',
        releases text[] NOT NULL DEFAULT '{}',
        error_messages text[] NOT NULL DEFAULT '{}',
        client_ips text[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE project_inbound_filters`);
  }
}
