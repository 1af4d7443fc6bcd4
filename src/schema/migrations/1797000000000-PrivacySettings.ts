import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project's data protection settings (docs/data-protection.md). A project without a row has the
 * defaults: scrubbing on, IP addresses kept, no extra sensitive or safe fields. Only projects that
 * change something get a row.
 */
export class PrivacySettings1797000000000 implements MigrationInterface {
  name = 'PrivacySettings1797000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE project_privacy_settings (
        project_id int PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        scrub_data boolean NOT NULL DEFAULT true,
        scrub_ip_addresses boolean NOT NULL DEFAULT false,
        sensitive_fields text[] NOT NULL DEFAULT '{}',
        safe_fields text[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE project_privacy_settings`);
  }
}
