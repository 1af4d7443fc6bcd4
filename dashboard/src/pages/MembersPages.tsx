import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { personName, ROLE_HINTS, ROLE_LABELS, useCan, useMe } from '../access';
import { call, client, CreatedInvitation, errorMessage, Invitation, Member, Project, Role, ROLES, Team } from '../api';
import {
  Badge,
  CopyButton,
  Empty,
  ErrorMessage,
  FormFeedback,
  Loading,
  PageHeader,
  RelTime,
  useAsync,
  useTitle,
} from '../components';
import { plural } from '../util';

function MembersNav({ active }: { active: 'members' | 'teams' }) {
  return (
    <nav class="tabs" aria-label="Members sections">
      <a
        href="/members"
        class={active === 'members' ? 'tab active' : 'tab'}
        aria-current={active === 'members' ? 'page' : undefined}
      >
        Members
      </a>
      <a
        href="/members/teams"
        class={active === 'teams' ? 'tab active' : 'tab'}
        aria-current={active === 'teams' ? 'page' : undefined}
      >
        Teams
      </a>
    </nav>
  );
}

export function RoleBadge({ role }: { role: Role }) {
  return <Badge kind={`role-${role}`}>{ROLE_LABELS[role] ?? role}</Badge>;
}

const ROLE_ARTICLES: Record<Role, string> = {
  owner: 'an owner',
  admin: 'an admin',
  member: 'a member',
  viewer: 'a viewer',
};

/** Active accounts first, then by name. */
function byStanding(a: Member, b: Member): number {
  if (a.is_active !== b.is_active) return a.is_active ? -1 : 1;
  return personName(a).localeCompare(personName(b));
}

/** The roles `me` may hand out: only owners make owners. */
function assignableRoles(myRole: Role): Role[] {
  return ROLES.filter((role) => role !== 'owner' || myRole === 'owner');
}

function useTeams() {
  return useAsync(() => call(client.GET('/api/teams')).then((r) => r.data), []);
}

/** Adds a member or a project to a team. */
function addToTeam(teamId: number, side: 'members' | 'projects', id: number): Promise<unknown> {
  return side === 'members'
    ? call(client.PUT('/api/teams/{id}/members/{userId}', { params: { path: { id: teamId, userId: id } } }))
    : call(client.PUT('/api/teams/{id}/projects/{projectId}', { params: { path: { id: teamId, projectId: id } } }));
}

/** Takes a member or a project out of a team. */
function removeFromTeam(teamId: number, side: 'members' | 'projects', id: number): Promise<unknown> {
  return side === 'members'
    ? call(client.DELETE('/api/teams/{id}/members/{userId}', { params: { path: { id: teamId, userId: id } } }))
    : call(client.DELETE('/api/teams/{id}/projects/{projectId}', { params: { path: { id: teamId, projectId: id } } }));
}

function InviteForm({ teams, onInvited }: { teams: Team[]; onInvited: () => void }) {
  const me = useMe();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [teamIds, setTeamIds] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const reveal = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (created) reveal.current?.focus();
  }, [created]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const invitation = await call(
        client.POST('/api/invitations', { body: { email: email.trim(), role, team_ids: teamIds } }),
      );
      setCreated(invitation);
      setEmail('');
      setTeamIds([]);
      onInvited();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form class="card invite-form" onSubmit={(event) => void submit(event)} aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <div class="invite-fields">
          <label class="field grow">
            <span>E-mail</span>
            <input
              type="email"
              name="invite-email"
              required
              maxLength={320}
              autoComplete="off"
              placeholder="ada@example.com"
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Role</span>
            <select
              name="invite-role"
              value={role}
              aria-describedby="invite-role-hint"
              onChange={(event) => setRole(event.currentTarget.value as Role)}
            >
              {assignableRoles(me.role).map((option) => (
                <option key={option} value={option}>
                  {ROLE_LABELS[option]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p class="hint" id="invite-role-hint">
          {ROLE_LABELS[role]}s can {ROLE_HINTS[role]}.
        </p>
        {teams.length > 0 && (
          <fieldset class="field invite-teams">
            <legend>Teams</legend>
            <div class="chip-checks">
              {teams.map((team) => (
                <label key={team.id} class="check chip-check">
                  <input
                    type="checkbox"
                    checked={teamIds.includes(team.id)}
                    onChange={(event) =>
                      setTeamIds(
                        event.currentTarget.checked
                          ? [...teamIds, team.id]
                          : teamIds.filter((id) => id !== team.id),
                      )
                    }
                  />
                  {team.name}
                </label>
              ))}
            </div>
            <small class="hint">Members and viewers see the projects of their teams only.</small>
          </fieldset>
        )}
        <ErrorMessage error={error} />
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" disabled={busy || !email.trim()}>
            {busy ? 'Inviting…' : 'Create invitation'}
          </button>
        </div>
      </form>
      {created && (
        <div
          class="card token-reveal"
          role="region"
          aria-labelledby="invitation-link-title"
          tabIndex={-1}
          ref={reveal}
        >
          <h2 id="invitation-link-title">Invitation for {created.email}</h2>
          <p role="status">
            {created.emailed
              ? `The link was e-mailed to ${created.email}. You can also pass it on yourself:`
              : `The link was not e-mailed (no mail server is set up, or sending failed): send it to ${created.email} yourself.`}
          </p>
          <div class="dsn-row">
            <input
              class="mono"
              readOnly
              aria-label="Invitation link"
              value={created.link}
              onFocus={(event) => event.currentTarget.select()}
            />
            <CopyButton text={created.link} label="Copy link" />
          </div>
          <p class="muted small">
            It can be used once, expires <RelTime value={created.expires_at} />, and is not shown again.
          </p>
          <button type="button" class="btn btn-small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
    </>
  );
}

function InvitationsTable({
  invitations,
  teamName,
  onChanged,
}: {
  invitations: Invitation[];
  teamName: (id: number) => string;
  onChanged: () => void;
}) {
  const [pending, setPending] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const revoke = async (invitation: Invitation) => {
    setPending(invitation.id);
    setError(null);
    try {
      await call(client.DELETE('/api/invitations/{id}', { params: { path: { id: invitation.id } } }));
      onChanged();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setPending(null);
    }
  };
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title" class="section-title">
        Open invitations
      </h2>
      <ErrorMessage error={error} />
      {invitations.length === 0 ? (
        <p class="muted">No open invitations.</p>
      ) : (
        <div class="table-wrap">
          <table class="data-table">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Teams</th>
                <th>Expires</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id}>
                  <td data-label="E-mail" class="cell-wrap">
                    {invitation.email}
                  </td>
                  <td data-label="Role">
                    <RoleBadge role={invitation.role} />
                  </td>
                  <td data-label="Teams">
                    {invitation.team_ids.length ? (
                      invitation.team_ids.map(teamName).join(', ')
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td data-label="Expires">
                    {invitation.state === 'expired' ? (
                      <Badge kind="failed">expired</Badge>
                    ) : (
                      <RelTime value={invitation.expires_at} />
                    )}
                  </td>
                  <td class="col-actions">
                    <button
                      type="button"
                      class="btn btn-tiny btn-danger"
                      disabled={pending === invitation.id}
                      aria-label={`Revoke the invitation of ${invitation.email}`}
                      onClick={() => void revoke(invitation)}
                    >
                      {pending === invitation.id ? 'Revoking…' : 'Revoke'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Deactivating signs the account out at once: it is asked twice, in the row. */
function ActiveToggle({
  member,
  busy,
  onSet,
}: {
  member: Member;
  busy: boolean;
  onSet: (active: boolean) => void;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  const name = personName(member);
  if (!member.is_active) {
    return (
      <button
        type="button"
        class="btn btn-tiny"
        disabled={busy}
        aria-label={`Reactivate ${name}`}
        onClick={() => onSet(true)}
      >
        Reactivate
      </button>
    );
  }
  if (!asking) {
    return (
      <button
        type="button"
        class="btn btn-tiny btn-danger"
        disabled={busy}
        aria-label={`Deactivate ${name}`}
        onClick={() => setAsking(true)}
      >
        Deactivate…
      </button>
    );
  }
  return (
    <div class="row-confirm" role="alertdialog" aria-label={`Confirm deactivating ${name}`}>
      <span class="small">Sign {name} out and stop their tokens?</span>
      <button
        type="button"
        ref={confirm}
        class="btn btn-tiny btn-danger-solid"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onSet(false);
        }}
      >
        Deactivate
      </button>
      <button
        type="button"
        class="btn btn-tiny"
        onClick={() => setAsking(false)}
        onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}
      >
        Cancel
      </button>
    </div>
  );
}

export function MembersPage() {
  useTitle('Members');
  const me = useMe();
  const manage = useCan()('members:admin');
  const members = useAsync(() => call(client.GET('/api/members')).then((r) => r.data), []);
  const teams = useTeams();
  const invitations = useAsync(
    () =>
      manage
        ? call(client.GET('/api/invitations')).then((r) => r.data)
        : Promise.resolve([] as Invitation[]),
    [manage],
  );
  const [pending, setPending] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const teamList = teams.data ?? [];
  const teamName = (id: number) => teamList.find((team) => team.id === id)?.name ?? `Team #${id}`;
  const list = [...(members.data ?? [])].sort(byStanding);
  const active = list.filter((member) => member.is_active).length;

  const update = async (member: Member, change: { role?: Role; is_active?: boolean }, done: string) => {
    setPending(member.id);
    setError(null);
    setNotice(null);
    try {
      const updated = await call(client.PATCH('/api/members/{id}', { params: { path: { id: member.id } }, body: change }));
      members.setData((members.data ?? []).map((m) => (m.id === updated.id ? updated : m)));
      setNotice(done);
    } catch (failure) {
      setError(errorMessage(failure));
      // The select shows what was chosen: back to what is stored.
      members.refresh();
    } finally {
      setPending(null);
    }
  };

  return (
    <>
      <PageHeader
        title="Members"
        sub={
          members.data ? `${plural(active, 'active account')}, ${plural(teamList.length, 'team')}` : undefined
        }
      />
      <MembersNav active="members" />
      {manage && (
        <InviteForm
          teams={teamList}
          onInvited={() => {
            invitations.reload();
          }}
        />
      )}
      {manage && invitations.data && (
        <InvitationsTable invitations={invitations.data} teamName={teamName} onChanged={invitations.reload} />
      )}
      <ErrorMessage error={invitations.error} onRetry={invitations.reload} />

      <section aria-labelledby="member-list-title">
        <h2 id="member-list-title" class="section-title">
          Accounts
        </h2>
        <FormFeedback error={error} notice={notice} />
        <ErrorMessage error={members.error} onRetry={members.reload} />
        {members.loading && !members.data && <Loading label="Loading members…" />}
        {members.data && list.length === 0 && <Empty title="No accounts yet." />}
        {list.length > 0 && (
          <div class="table-wrap">
            <table class="data-table members-table">
              <thead>
                <tr>
                  <th>Member</th>
                  <th>Role</th>
                  <th>Teams</th>
                  <th>Status</th>
                  <th>Joined</th>
                  {manage && (
                    <th>
                      <span class="sr-only">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {list.map((member) => {
                  const name = personName(member);
                  const self = member.id === me.user_id;
                  // Only owners change owners; nobody changes their own role or deactivates themselves.
                  const editable = manage && !self && (member.role !== 'owner' || me.role === 'owner');
                  return (
                    <tr key={member.id} class={member.is_active ? undefined : 'inactive'}>
                      <td data-label="Member" class="member-cell">
                        <span class="member-name">
                          {name}
                          {self && <span class="muted small"> (you)</span>}
                        </span>
                        {member.name && <span class="muted small member-email">{member.email}</span>}
                      </td>
                      <td data-label="Role">
                        {editable ? (
                          <select
                            class="role-select"
                            aria-label={`Role of ${name}`}
                            value={member.role}
                            disabled={pending === member.id}
                            onChange={(event) => {
                              const role = event.currentTarget.value as Role;
                              void update(member, { role }, `${name} is now ${ROLE_ARTICLES[role]}.`);
                            }}
                          >
                            {assignableRoles(me.role).map((role) => (
                              <option key={role} value={role}>
                                {ROLE_LABELS[role]}
                              </option>
                            ))}
                          </select>
                        ) : (
                          <RoleBadge role={member.role} />
                        )}
                      </td>
                      <td data-label="Teams">
                        {member.team_ids.length ? (
                          <span class="team-names">{member.team_ids.map(teamName).join(', ')}</span>
                        ) : (
                          <span class="muted">none</span>
                        )}
                      </td>
                      <td data-label="Status">
                        {member.is_active ? (
                          <Badge kind="resolved">active</Badge>
                        ) : (
                          <span class="status-line">
                            <Badge kind="muted">deactivated</Badge>
                            {member.deactivated_at && (
                              <span class="muted small">
                                {' '}
                                <RelTime value={member.deactivated_at} />
                              </span>
                            )}
                          </span>
                        )}
                        {member.sso && (
                          <>
                            {' '}
                            <Badge kind="neutral">SSO</Badge>
                          </>
                        )}
                      </td>
                      <td data-label="Joined">
                        <RelTime value={member.created_at} />
                      </td>
                      {manage && (
                        <td class="col-actions">
                          {editable && (
                            <ActiveToggle
                              member={member}
                              busy={pending === member.id}
                              onSet={(isActive) =>
                                void update(
                                  member,
                                  { is_active: isActive },
                                  isActive
                                    ? `${name} can sign in again.`
                                    : `${name} is deactivated: signed out, tokens stopped.`,
                                )
                              }
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** Adds one of `options` to a team: a select and a button. */
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
  const members = useAsync(() => call(client.GET('/api/members')).then((r) => r.data), []);
  // Names only: a team's projects that this account cannot see show as numbers.
  const projects = useAsync(
    () =>
      call(client.GET('/api/projects'))
        .then((r) => r.data)
        .catch(() => [] as Project[]),
    [],
  );
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call(client.POST('/api/teams', { body: { name: name.trim() } }));
      setName('');
      teams.refresh();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const list = [...(teams.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <PageHeader title="Members" sub="Teams give members and viewers their projects." />
      <MembersNav active="teams" />
      {manage && (
        <form class="card inline-form" onSubmit={(event) => void create(event)} aria-label="New team">
          <label class="field grow">
            <span>New team name</span>
            <input
              name="team-name"
              required
              maxLength={100}
              placeholder="e.g. Payments"
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <button type="submit" class="btn btn-primary" disabled={busy || !name.trim()}>
            {busy ? 'Creating…' : 'Create team'}
          </button>
          <ErrorMessage error={error} />
        </form>
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
