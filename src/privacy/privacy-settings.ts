import { DEFAULT_SCRUB_SETTINGS, ScrubSettings } from './scrubbing/event-scrubber';
import type { PrivacySettingsRow } from './privacy-settings.repository';

/** The scrubber's settings from a project's row, or the defaults when it has none. */
export function scrubSettingsOf(row: PrivacySettingsRow | undefined): ScrubSettings {
  if (!row) return DEFAULT_SCRUB_SETTINGS;
  return {
    enabled: row.scrub_data,
    scrubIpAddresses: row.scrub_ip_addresses,
    sensitiveFields: row.sensitive_fields,
    safeFields: row.safe_fields,
  };
}
