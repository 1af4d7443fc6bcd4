import { useEffect } from 'preact/hooks';
import { useCan, useMe } from '../access';
import type { Permission, Project } from '../api';
import { Loading, ProjectLoadError, useTitle } from '../components';
import { navigate } from '../router';
import { DataProtectionForm } from './DataProtectionForm';
import { ErasureSection } from './ErasureSection';
import { InboundFiltersForm } from './InboundFiltersForm';
import { GeneralSettings } from './ProjectGeneralSettings';
import { ProjectHeader, useProject } from './ProjectHeader';
import { QuotaRefusalBanner } from './QuotaRefusalBanner';
import { QuotasForm } from './QuotasForm';
import { StatusPageSettingsForm } from './StatusPageSettingsForm';

export type ProjectSettingsSection = 'general' | 'data-protection' | 'inbound-filters' | 'quotas' | 'status-page' | 'erasure';

const SECTIONS: { section: ProjectSettingsSection; label: string; title: string; needs?: Permission }[] = [
  { section: 'general', label: 'General', title: 'General settings' },
  { section: 'data-protection', label: 'Data protection', title: 'Data protection' },
  { section: 'inbound-filters', label: 'Inbound filters', title: 'Inbound filters' },
  { section: 'quotas', label: 'Quotas', title: 'Quotas and spike protection' },
  { section: 'status-page', label: 'Status page', title: 'Status page', needs: 'projects:admin' },
  { section: 'erasure', label: 'Erasure', title: "Erasing a person's data" },
];

/** The ids of the cards of the one long page settings used to be, and the section each is in now. */
const OLD_ANCHORS: Record<string, ProjectSettingsSection> = {
  'data-protection': 'data-protection',
  'inbound-filters': 'inbound-filters',
  quotas: 'quotas',
  'status-page': 'status-page',
  erasure: 'erasure',
};

export function settingsPath(projectId: number, section: ProjectSettingsSection): string {
  return `/projects/${projectId}/settings/${section}`;
}

function isSection(value: string): value is ProjectSettingsSection {
  return SECTIONS.some((entry) => entry.section === value);
}

/** The menu of the settings' sections: a column beside them on a laptop, wrapped rows on a phone. */
function SettingsMenu({ projectId, active }: { projectId: number; active: ProjectSettingsSection | null }) {
  const can = useCan();
  return (
    <nav class="settings-menu" aria-label="Project settings">
      {SECTIONS.filter(({ needs }) => !needs || can(needs)).map(({ section, label }) => (
        <a
          key={section}
          href={settingsPath(projectId, section)}
          class={active === section ? 'settings-menu-link active' : 'settings-menu-link'}
          aria-current={active === section ? 'page' : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

function SectionContent({ project, section, onSaved }: { project: Project; section: ProjectSettingsSection; onSaved: (project: Project) => void }) {
  const can = useCan();
  const me = useMe();
  const needs = SECTIONS.find((entry) => entry.section === section)?.needs;
  if (needs && !can(needs)) {
    return <p class="lead">A {me.role} cannot change this section. Ask an admin.</p>;
  }
  switch (section) {
    case 'general':
      return <GeneralSettings project={project} onSaved={onSaved} canDelete={can('projects:admin')} />;
    case 'data-protection':
      return <DataProtectionForm key={`data-protection-${project.id}`} projectId={project.id} />;
    case 'inbound-filters':
      return <InboundFiltersForm key={`inbound-filters-${project.id}`} projectId={project.id} />;
    case 'quotas':
      return <QuotasForm key={`quotas-${project.id}`} projectId={project.id} />;
    case 'status-page':
      return <StatusPageSettingsForm key={`status-page-${project.id}`} projectId={project.id} projectName={project.name} />;
    case 'erasure':
      return <ErasureSection key={`erasure-${project.id}`} projectId={project.id} />;
  }
}

/**
 * A project's settings, one section per address (`/projects/:id/settings/:section`); the bare
 * address opens General, and the anchors that links into the one long page used land on their section.
 */
export function ProjectSettingsPage({ projectId, section }: { projectId: number; section?: string }) {
  const me = useMe();
  const can = useCan();
  const project = useProject(projectId);
  const anchor = section === undefined ? window.location.hash.slice(1) : '';
  const moved = anchor ? OLD_ANCHORS[anchor] ?? 'general' : null;
  useEffect(() => {
    if (moved) navigate(settingsPath(projectId, moved), { replace: true });
  }, [projectId, moved]);
  const active = section === undefined ? 'general' : isSection(section) ? section : null;
  const title = SECTIONS.find((entry) => entry.section === active)?.title ?? 'Settings';
  useTitle(project.data ? `${project.data.name} · ${title}` : 'Project settings');
  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const saved = (updated: Project) => project.setData(updated);

  return (
    <>
      <ProjectHeader project={project.data} active="settings" />
      <QuotaRefusalBanner projectId={projectId} />
      {can('project:write') ? (
        <div class="settings-layout">
          <SettingsMenu projectId={projectId} active={active} />
          <div class="settings-stack">
            {moved ? null : active ? (
              <SectionContent project={project.data} section={active} onSaved={saved} />
            ) : (
              <div class="card">
                <p>There is no settings section at this address.</p>
                <p>
                  <a href={settingsPath(projectId, 'general')}>General settings</a>
                </p>
              </div>
            )}
          </div>
        </div>
      ) : (
        <p class="lead">
          A {me.role} cannot change a project's settings. Ask an admin or a member of its team.
        </p>
      )}
    </>
  );
}
