import { useCan } from '../access';
import type { Permission } from '../api';
import { useCurrentTabInView } from '../components';

export type SettingsSection = 'account' | 'tokens' | 'channels' | 'audit-log';

const SECTIONS: { section: SettingsSection; label: string; needs?: Permission }[] = [
  { section: 'account', label: 'Account' },
  { section: 'tokens', label: 'API tokens' },
  { section: 'channels', label: 'Notification channels', needs: 'channels:read' },
  { section: 'audit-log', label: 'Audit log', needs: 'audit:read' },
];

/** The tabs of the settings area, without those the signed-in role cannot open. */
export function SettingsNav({ active }: { active: SettingsSection }) {
  const can = useCan();
  const tabs = useCurrentTabInView<HTMLElement>();
  return (
    <nav class="tabs" aria-label="Settings sections" ref={tabs}>
      {SECTIONS.filter(({ needs }) => !needs || can(needs)).map(({ section, label }) => (
        <a
          key={section}
          href={`/settings/${section}`}
          class={active === section ? 'tab active' : 'tab'}
          aria-current={active === section ? 'page' : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}
