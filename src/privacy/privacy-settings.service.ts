import { Injectable } from '@nestjs/common';
import { DEFAULT_SENSITIVE_KEY_PARTS } from './scrubbing/sensitive-keys';
import { PrivacySettingsView } from './dto/privacy-settings.response';
import { scrubSettingsOf } from './privacy-settings';
import {
  PrivacySettingsChange,
  PrivacySettingsRepository,
  PrivacySettingsRow,
} from './privacy-settings.repository';

@Injectable()
export class PrivacySettingsService {
  constructor(private readonly settings: PrivacySettingsRepository) {}

  async get(projectId: number): Promise<PrivacySettingsView> {
    const [row] = await this.settings.findMany([projectId]);
    return view(projectId, row);
  }

  async update(projectId: number, change: PrivacySettingsChange): Promise<PrivacySettingsView> {
    const unique = (names: string[] | undefined): string[] | undefined =>
      names === undefined ? undefined : [...new Set(names)];
    const row = await this.settings.upsert(projectId, {
      ...change,
      sensitive_fields: unique(change.sensitive_fields),
      safe_fields: unique(change.safe_fields),
    });
    return view(projectId, row);
  }
}

function view(projectId: number, row: PrivacySettingsRow | undefined): PrivacySettingsView {
  const settings = scrubSettingsOf(row);
  return {
    project_id: projectId,
    scrub_data: settings.enabled,
    scrub_ip_addresses: settings.scrubIpAddresses,
    sensitive_fields: [...settings.sensitiveFields],
    safe_fields: [...settings.safeFields],
    updated_at: row ? row.updated_at.toISOString() : null,
    default_sensitive_fields: [...DEFAULT_SENSITIVE_KEY_PARTS],
  };
}
