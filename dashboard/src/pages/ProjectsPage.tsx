import { useCan } from '../access';
import { call, client } from '../api';
import { Empty, ErrorMessage, Loading, NewNameForm, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { navigate } from '../router';
import { DsnField } from './DsnSetup';

export function ProjectsPage() {
  useTitle('Projects');
  const can = useCan();
  const projects = useAsync(() => call(client.GET('/api/projects')).then((r) => r.data), []);
  const create = async (name: string) => {
    const project = await call(client.POST('/api/projects', { body: { name } }));
    navigate(`/projects/${project.id}/issues`);
  };

  return (
    <>
      <PageHeader title="Projects" sub="Each project has its own DSN; SDKs send errors to it." />
      {can('projects:admin') && (
        <NewNameForm
          label="New project name"
          inputName="project-name"
          maxLength={200}
          placeholder="e.g. Web shop"
          submitLabel="Create project"
          onCreate={create}
        />
      )}

      <ErrorMessage error={projects.error} onRetry={projects.reload} />
      {projects.loading && !projects.data && <Loading label="Loading projects…" />}
      {projects.data && projects.data.length === 0 && (
        <Empty title="No projects yet">
          {can('projects:admin')
            ? 'Create your first project above to get a DSN for your SDK.'
            : 'You see the projects of your teams: an admin can add you to a team, or a project to your team.'}
        </Empty>
      )}
      {projects.data && projects.data.length > 0 && (
        <ul class="project-list">
          {projects.data.map((project) => (
            <li key={project.id} class="card project-card">
              <div class="project-card-head">
                <h2>
                  <a href={`/projects/${project.id}/issues`}>{project.name}</a>
                </h2>
                <span class="muted small">
                  {project.slug} · created <RelTime value={project.created_at} />
                </span>
              </div>
              <dl class="project-counts">
                <div>
                  <dt>Open issues</dt>
                  <dd>
                    <a href={`/projects/${project.id}/issues`}>{project.open_issues.toLocaleString()}</a>
                  </dd>
                </div>
                <div>
                  <dt>Events, last 24 hours</dt>
                  <dd>{project.events_24h.toLocaleString()}</dd>
                </div>
              </dl>
              <DsnField project={project} />
              <div class="project-card-links">
                <a class="btn btn-small" href={`/projects/${project.id}/issues`}>
                  Issues
                </a>
                <a class="btn btn-small" href={`/projects/${project.id}/alerts`}>
                  Alerts
                </a>
                {can('project:write') && (
                  <a class="btn btn-small" href={`/projects/${project.id}/settings`}>
                    Settings
                  </a>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
