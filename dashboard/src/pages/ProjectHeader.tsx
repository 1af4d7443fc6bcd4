import type { Project } from '../api';
import { useAsync } from '../components';
import { api } from '../api';

export function useProject(projectId: number) {
  return useAsync(() => api.get<Project>(`/api/projects/${projectId}`), [projectId]);
}

type Section = 'issues' | 'alerts' | 'source-maps' | 'settings';

const SECTIONS: { section: Section; path: string; label: string }[] = [
  { section: 'issues', path: 'issues', label: 'Issues' },
  { section: 'alerts', path: 'alerts', label: 'Alert rules & history' },
  { section: 'source-maps', path: 'source-maps', label: 'Source maps' },
  { section: 'settings', path: 'settings', label: 'Settings' },
];

export function ProjectHeader({ project, active }: { project: Project; active: Section }) {
  return (
    <div class="project-header">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span> <span>{project.name}</span>
      </nav>
      <h1>{project.name}</h1>
      <nav class="tabs" aria-label="Project sections">
        {SECTIONS.map(({ section, path, label }) => (
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
