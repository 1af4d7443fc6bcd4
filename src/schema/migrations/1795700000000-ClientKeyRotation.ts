import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Client key rotation with a grace period: the key a rotation replaced, and until when ingest still
 * accepts it (SDKs keep the old DSN until they are redeployed). Both are set together or not at all.
 */
export class ClientKeyRotation1795700000000 implements MigrationInterface {
  name = 'ClientKeyRotation1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE projects
        ADD COLUMN previous_client_key uuid,
        ADD COLUMN previous_client_key_expires_at timestamptz,
        ADD CONSTRAINT projects_previous_client_key_check
          CHECK ((previous_client_key IS NULL) = (previous_client_key_expires_at IS NULL));
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE projects
        DROP CONSTRAINT IF EXISTS projects_previous_client_key_check,
        DROP COLUMN IF EXISTS previous_client_key,
        DROP COLUMN IF EXISTS previous_client_key_expires_at;
    `);
  }
}
