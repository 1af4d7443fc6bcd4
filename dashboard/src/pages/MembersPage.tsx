import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { personName, ROLE_HINTS, ROLE_LABELS, useCan, useMe } from '../access';
import { call, client, CreatedInvitation, errorMessage, Invitation, Member, Role, Team } from '../api';
import { Badge, CheckboxPicker, CopyButton, Empty, ErrorMessage, FormFeedback, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { useRowAction, useSubmit } from '../actions';
import { plural } from '../util';
import { useMembers, useTeams } from '../people';
import { MembersNav, RoleBadge, ROLE_ARTICLES, byStanding, assignableRoles } from './MembersCommon';

function InviteForm({ teams, onInvited }: { teams: Team[]; onInvited: () => void }) {
  const me = useMe();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [teamIds, setTeamIds] = useState<number[]>([]);
  const { busy, error, run } = useSubmit();
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const reveal = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (created) reveal.current?.focus();
  }, [created]);

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const invitation = await call(
        client.POST('/api/invitations', { body: { email: email.trim(), role, team_ids: teamIds } }),
      );
      setCreated(invitation);
      setEmail('');
      setTeamIds([]);
      onInvited();
    });
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
              <CheckboxPicker
                options={teams.map((team) => ({ id: team.id, label: team.name }))}
                chosen={teamIds}
                onChange={setTeamIds}
                itemClass="check chip-check"
              />
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
  const { pending, error, act } = useRowAction<number>();
  const revoke = (invitation: Invitation) =>
    act(invitation.id, async () => {
      await call(client.DELETE('/api/invitations/{id}', { params: { path: { id: invitation.id } } }));
      onChanged();
    });
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title" class="section-title">
        Open invitations
      </h2>
      <ErrorMessage error={error} />
      {invitations.length === 0 ? (
        <p class="muted">No open invitations.</p>
      ) : (
        <DataTable columns={['E-mail', 'Role', 'Teams', 'Expires', { label: 'Actions', hidden: true }]}>
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
        </DataTable>
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
  const members = useMembers();
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
          <DataTable class="members-table" columns={['Member', 'Role', 'Teams', 'Status', 'Joined', manage && { label: 'Actions', hidden: true }]}>
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
          </DataTable>
        )}
      </section>
    </>
  );
}

/** Adds one of `options` to a team: a select and a button. */
