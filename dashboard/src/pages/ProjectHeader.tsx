import type { ComponentChildren } from 'preact';
import { useCan } from '../access';
import type { Permission, Project } from '../api';
import { useAsync, useCurrentTabInView } from '../components';
import { call, client } from '../api';

export function useProject(projectId: number) {
  return useAsync(() => call(client.GET('/api/projects/{id}', { params: { path: { id: projectId } } })), [projectId]);
}

type Section = 'issues' | 'releases' | 'monitors' | 'feedback' | 'alerts' | 'source-maps' | 'usage' | 'settings';

const SECTIONS: { section: Section; path: string; label: string; needs?: Permission }[] = [
  { section: 'issues', path: 'issues', label: 'Issues' },
  { section: 'releases', path: 'releases', label: 'Releases' },
  { section: 'monitors', path: 'monitors', label: 'Monitors' },
  { section: 'feedback', path: 'feedback', label: 'Feedback' },
  { section: 'alerts', path: 'alerts', label: 'Alert rules & history' },
  { section: 'source-maps', path: 'source-maps', label: 'Source maps' },
  { section: 'usage', path: 'usage', label: 'Usage' },
  { section: 'settings', path: 'settings', label: 'Settings', needs: 'project:write' },
];

export function ProjectHeader({ project, active, afterHeading }: { project: Project; active: Section; afterHeading?: ComponentChildren }) {
  const can = useCan();
  const tabs = useCurrentTabInView<HTMLElement>();
  const visible = SECTIONS.filter(({ section, needs }) => !needs || can(needs) || section === active);
  return (
    <div class="project-header">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span> <span>{project.name}</span>
      </nav>
      <h1>{project.name}</h1>
      {afterHeading}
      <nav class="tabs" aria-label="Project sections" ref={tabs}>
        {visible.map(({ section, path, label }) => (
          <a
            key={section}
            href={`/projects/${project.id}/${path}`}
            class={active === section ? 'tab active' : 'tab'}
            aria-current={active === section ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
    </div>
  );
}
