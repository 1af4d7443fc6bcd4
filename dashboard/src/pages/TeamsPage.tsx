import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { personName, ROLE_LABELS, useCan } from '../access';
import { call, client, errorMessage, Member, Project, Team } from '../api';
import { Empty, ErrorMessage, Loading, NewNameForm, PageHeader, useAsync, useTitle } from '../components';
import { useMembers, useTeams } from '../people';
import { MembersNav, byStanding, addToTeam, removeFromTeam } from './MembersCommon';

function AddToTeam({
  label,
  button,
  placeholder,
  options,
  busy,
  onAdd,
}: {
  label: string;
  button: string;
  /** What the empty choice says, e.g. "Choose a member…". */
  placeholder: string;
  options: { id: number; name: string }[];
  busy: boolean;
  onAdd: (id: number) => void;
}) {
  const [choice, setChoice] = useState('');
  if (options.length === 0) return null;
  return (
    <form
      class="add-row"
      onSubmit={(event) => {
        event.preventDefault();
        if (!choice) return;
        onAdd(Number(choice));
        setChoice('');
      }}
    >
      <select aria-label={label} value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option.id} value={String(option.id)}>
            {option.name}
          </option>
        ))}
      </select>
      <button type="submit" class="btn btn-small" disabled={busy || !choice}>
        {button}
      </button>
    </form>
  );
}

function TeamCard({
  team,
  members,
  projects,
  manage,
  onChanged,
}: {
  team: Team;
  members: Member[];
  projects: Project[];
  manage: boolean;
  onChanged: () => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(team.name);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const memberName = (id: number) => {
    const member = members.find((candidate) => candidate.id === id);
    return member ? personName(member) : `Account #${id}`;
  };
  const projectName = (id: number) => projects.find((project) => project.id === id)?.name ?? `Project #${id}`;
  const titleId = `team-${team.id}-title`;

  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      onChanged();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const rename = async (event: Event) => {
    event.preventDefault();
    const renamed = () => call(client.PATCH('/api/teams/{id}', { params: { path: { id: team.id } }, body: { name: name.trim() } }));
    if (await run(renamed)) setRenaming(false);
  };

  const candidates = members
    .filter((member) => member.is_active && !team.member_ids.includes(member.id))
    .sort(byStanding)
    .map((member) => ({
      id: member.id,
      name: `${personName(member)} (${ROLE_LABELS[member.role].toLowerCase()})`,
    }));
  const projectChoices = projects
    .filter((project) => !team.project_ids.includes(project.id))
    .map((project) => ({ id: project.id, name: project.name }));

  return (
    <li class="card team-card" aria-labelledby={titleId}>
      <div class="team-head">
        {renaming ? (
          <form class="inline-form team-rename" onSubmit={(event) => void rename(event)}>
            <label class="field grow">
              <span>Team name</span>
              <input
                required
                maxLength={100}
                value={name}
                autoFocus
                onInput={(event) => setName(event.currentTarget.value)}
                onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)}
              />
            </label>
            <button type="submit" class="btn btn-primary btn-small" disabled={busy || !name.trim()}>
              Save
            </button>
            <button type="button" class="btn btn-small" onClick={() => setRenaming(false)}>
              Cancel
            </button>
            <small class="hint">
              Its slug, <span class="mono">#{team.slug}</span>, stays as it is: searches use it.
            </small>
          </form>
        ) : (
          <h2 id={titleId}>
            {team.name} <span class="mono small muted">#{team.slug}</span>
          </h2>
        )}
        {manage && !renaming && (
          <div class="inline-actions">
            <button
              type="button"
              class="btn btn-small"
              aria-label={`Rename team ${team.name}`}
              onClick={() => {
                setName(team.name);
                setRenaming(true);
              }}
            >
              Rename
            </button>
            <button
              type="button"
              class="btn btn-small btn-danger"
              aria-label={`Delete team ${team.name}`}
              onClick={() => setDeleting(true)}
            >
              Delete…
            </button>
          </div>
        )}
      </div>
      {deleting && (
        <div
          class="alert alert-error team-delete"
          role="alertdialog"
          aria-label={`Confirm deleting team ${team.name}`}
        >
          <span>
            Delete {team.name}? Its members keep their accounts but lose the projects they saw through it.
          </span>
          <span class="inline-actions">
            <button
              type="button"
              class="btn btn-small btn-danger-solid"
              disabled={busy}
              onClick={() => void run(() => call(client.DELETE('/api/teams/{id}', { params: { path: { id: team.id } } })))}
            >
              Delete team
            </button>
            <button type="button" class="btn btn-small" onClick={() => setDeleting(false)}>
              Cancel
            </button>
          </span>
        </div>
      )}
      <ErrorMessage error={error} />
      <div class="team-columns">
        <TeamSide
          title="Members"
          noun="member"
          empty="Nobody yet."
          team={team}
          ids={team.member_ids}
          label={(id) => <span>{memberName(id)}</span>}
          name={memberName}
          path="members"
          options={candidates}
          manage={manage}
          busy={busy}
          run={run}
        />
        <TeamSide
          title="Projects"
          noun="project"
          empty="No projects yet."
          team={team}
          ids={team.project_ids}
          label={(id) => <a href={`/projects/${id}/issues`}>{projectName(id)}</a>}
          name={projectName}
          path="projects"
          options={projectChoices}
          manage={manage}
          busy={busy}
          run={run}
        />
      </div>
    </li>
  );
}

/** One side of a team, its members or its projects: chips to remove, a picker to add. */
function TeamSide(props: {
  title: string;
  noun: string;
  empty: string;
  team: Team;
  ids: number[];
  label: (id: number) => ComponentChildren;
  name: (id: number) => string;
  path: 'members' | 'projects';
  options: Parameters<typeof AddToTeam>[0]['options'];
  manage: boolean;
  busy: boolean;
  run: (action: () => Promise<unknown>) => Promise<unknown>;
}) {
  const { team, ids, manage, busy, run } = props;
  return (
    <section aria-label={`${props.title} of ${team.name}`}>
      <h3>
        {props.title} <span class="muted small">({ids.length})</span>
      </h3>
      {ids.length === 0 && <p class="muted small">{props.empty}</p>}
      <ul class="chip-list">
        {ids.map((id) => (
          <li key={id} class="item-chip">
            {props.label(id)}
            {manage && (
              <button
                type="button"
                class="chip-remove"
                disabled={busy}
                aria-label={`Remove ${props.name(id)} from ${team.name}`}
                onClick={() => void run(() => removeFromTeam(team.id, props.path, id))}
              >
                <span aria-hidden="true">×</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {manage && (
        <AddToTeam
          label={`Add a ${props.noun} to ${team.name}`}
          button={`Add ${props.noun}`}
          placeholder={`Choose a ${props.noun}…`}
          options={props.options}
          busy={busy}
          onAdd={(id) => void run(() => addToTeam(team.id, props.path, id))}
        />
      )}
    </section>
  );
}

export function TeamsPage() {
  useTitle('Teams');
  const manage = useCan()('members:admin');
  const teams = useTeams();
  const members = useMembers();
  // Names only: a team's projects that this account cannot see show as numbers.
  const projects = useAsync(
    () =>
      call(client.GET('/api/projects'))
        .then((r) => r.data)
        .catch(() => [] as Project[]),
    [],
  );
  const create = async (name: string) => {
    await call(client.POST('/api/teams', { body: { name } }));
    teams.refresh();
  };

  const list = [...(teams.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <PageHeader title="Members" sub="Teams give members and viewers their projects." />
      <MembersNav active="teams" />
      {manage && (
        <NewNameForm
          label="New team name"
          inputName="team-name"
          maxLength={100}
          placeholder="e.g. Payments"
          submitLabel="Create team"
          formLabel="New team"
          onCreate={create}
        />
      )}
      <ErrorMessage error={teams.error} onRetry={teams.reload} />
      <ErrorMessage error={members.error} onRetry={members.reload} />
      {teams.loading && !teams.data && <Loading label="Loading teams…" />}
      {teams.data && list.length === 0 && (
        <Empty title="No teams yet.">
          {manage
            ? 'Create a team, then add members and projects: members and viewers see their teams’ projects.'
            : 'An admin can create teams.'}
        </Empty>
      )}
      <ul class="team-list">
        {list.map((team) => (
          <TeamCard
            key={team.id}
            team={team}
            members={members.data ?? []}
            projects={projects.data ?? []}
            manage={manage}
            onChanged={() => {
              teams.refresh();
              members.refresh();
            }}
          />
        ))}
      </ul>
    </>
  );
}
