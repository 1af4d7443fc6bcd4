import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An issue's attachment summary reads a project's files from the first seen on: an index
 * that leads with the project, so one busy project's files are not scanned for another's issue.
 */
export class AttachmentsByProjectTime1797450000000 implements MigrationInterface {
  name = 'AttachmentsByProjectTime1797450000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX attachments_project_received_at_idx ON attachments (project_id, received_at)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX attachments_project_received_at_idx');
  }
}
