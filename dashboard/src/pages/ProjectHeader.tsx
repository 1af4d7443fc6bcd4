import type { Project } from '../api';
import { useAsync } from '../components';
import { api } from '../api';

export function useProject(projectId: number) {
  return useAsync(() => api.get<Project>(`/api/projects/${projectId}`), [projectId]);
}

export function ProjectHeader({ project, active }: { project: Project; active: 'issues' | 'alerts' }) {
  return (
    <div class="project-header">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span> <span>{project.name}</span>
      </nav>
      <h1>{project.name}</h1>
      <nav class="tabs" aria-label="Project sections">
        <a href={`/projects/${project.id}/issues`} class={active === 'issues' ? 'tab active' : 'tab'} aria-current={active === 'issues' ? 'page' : undefined}>
          Issues
        </a>
        <a href={`/projects/${project.id}/alerts`} class={active === 'alerts' ? 'tab active' : 'tab'} aria-current={active === 'alerts' ? 'page' : undefined}>
          Alert rules &amp; history
        </a>
      </nav>
    </div>
  );
}
