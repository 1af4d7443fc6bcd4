import type { ComponentChildren } from 'preact';
import type { Project } from '../api';
import { Async, DeadEnd, ErrorMessage, Loading, ProjectLoadError } from '../components';
import { useProject } from './ProjectHeader';
import './monitors.css';

/**
 * The frame of a monitor's page and of its form: the project and the monitor loaded (none for a new
 * one: `monitor` then resolves to undefined), a dead end when the monitor is gone, the breadcrumb.
 */
export function MonitorFrame<T>({
  projectId,
  monitor,
  missing,
  children,
}: {
  projectId: number;
  monitor: Pick<Async<T>, 'data' | 'error' | 'status' | 'loading' | 'reload'>;
  /** What the dead end says when the monitor is not found. */
  missing: string;
  children: (project: Project, monitor: T | undefined) => ComponentChildren;
}) {
  const project = useProject(projectId);
  if (project.error) return <ProjectLoadError project={project} />;
  if (monitor.status === 404) {
    return (
      <DeadEnd title="Monitor not found" links={[{ href: `/projects/${projectId}/monitors`, label: 'Back to monitors' }]}>
        {missing}
      </DeadEnd>
    );
  }
  if (monitor.error) return <ErrorMessage error={monitor.error} onRetry={monitor.reload} status={monitor.status} />;
  if (!project.data || (monitor.loading && monitor.data === undefined)) return <Loading />;
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/issues`}>{project.data.name}</a>{' '}
        <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/monitors`}>Monitors</a>
      </nav>
      {children(project.data, monitor.data)}
    </>
  );
}

/** Numbers as typed: an empty field is left to the server's default, anything else goes as it is (the server says what it accepts). */
export function numberOrUndefined(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/** A number field of a monitor's form, with its hint. */
export function NumberField(props: {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  hint?: string;
  min?: number;
  max?: number;
}) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input
        type="number"
        name={props.name}
        min={props.min}
        max={props.max}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && <small class="hint">{props.hint}</small>}
    </label>
  );
}

/** The end of a monitor's form: the server's refusal, Save (or Create) and Cancel. */
export function MonitorFormEnd({ error, busy, editing, cancelHref }: { error: string | null; busy: boolean; editing: boolean; cancelHref: string }) {
  return (
    <>
      <ErrorMessage error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save monitor' : 'Create monitor'}
        </button>
        <a class="btn" href={cancelHref}>
          Cancel
        </a>
      </div>
    </>
  );
}
