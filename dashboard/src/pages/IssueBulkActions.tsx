import { useState } from 'preact/hooks';
import { useMe } from '../access';
import { call, client, errorMessage, Issue, Team } from '../api';
import { Menu } from '../components';
import { plural } from '../util';
import { TriageActions, TriageChoice } from './TriageActions';

/** The issues chosen on the list: by id, or every one the search matches (`query`). */
export type BulkSelection = { ids: number[] } | { query: string };

/**
 * Changing the chosen issues at once: state, assignee, merge. `busy` names the change under way,
 * `notice` and `error` say how the last one went; `done` runs after each (the list reads itself again).
 */
export function useBulkActions(projectId: number, done: (changed: boolean) => void) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const perform = async (label: string, action: () => Promise<string>) => {
    setBusy(label);
    setError(null);
    setNotice(null);
    let changed = false;
    try {
      setNotice(await action());
      changed = true;
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(null);
      done(changed);
    }
  };
  const update = async (selection: BulkSelection, body: Record<string, unknown>) =>
    (await call(client.PATCH('/api/projects/{projectId}/issues', { params: { path: { projectId } }, body: { ...selection, ...body } }))).updated;

  return {
    busy,
    error,
    notice,
    /** What the last change said was about the list as it was: not about the next one. */
    forget: () => {
      setError(null);
      setNotice(null);
    },
    applyChoice: (selection: BulkSelection, choice: TriageChoice) =>
      perform(choice.label, async () => {
        const change = choice.change();
        return `${plural(await update(selection, change), 'issue')} marked ${change.state}.`;
      }),
    assign: (selection: BulkSelection, assignee: string | null, label: string) =>
      perform('assign', async () => `${plural(await update(selection, { assignee }), 'issue')} ${assignee ? `assigned to ${label}` : 'unassigned'}.`),
    merge: (survivor: Issue, others: number[]) =>
      perform('merge', async () => {
        await call(client.POST('/api/issues/{id}/merge', { params: { path: { id: survivor.id } }, body: { ids: others } }));
        return `${plural(others.length, 'issue')} merged into ${survivor.short_id}.`;
      }),
  };
}

/** The merged issues fold into the one with the most events (the oldest on a tie). */
function survivorOf(issues: Issue[]): Issue | undefined {
  return [...issues].sort((a, b) => b.event_count - a.event_count || a.id - b.id)[0];
}

/** The bar over the list while issues are chosen: what is chosen, and what can be done to them. */
export function BulkActionsBar({
  actions,
  selection,
  selectedIssues,
  selectedCount,
  allMatching,
  estimated,
  offerAllMatching,
  teams,
  onSelectAllMatching,
  onClear,
}: {
  actions: ReturnType<typeof useBulkActions>;
  selection: BulkSelection;
  /** The chosen issues of this page (all of them when every matching one is chosen). */
  selectedIssues: Issue[];
  selectedCount: number;
  allMatching: boolean;
  estimated: boolean;
  /** This page is all chosen and more issues match: offer to choose them all. */
  offerAllMatching: number | null;
  teams: Team[];
  onSelectAllMatching: () => void;
  onClear: () => void;
}) {
  const me = useMe();
  const [confirmMerge, setConfirmMerge] = useState(false);
  const { busy } = actions;
  const survivor = survivorOf(selectedIssues);
  const about = estimated ? 'about ' : '';
  return (
    <div class="bulk-bar" role="region" aria-label="Bulk actions">
      <strong>{allMatching ? `All ${about}${selectedCount.toLocaleString()} matching selected` : `${selectedCount} selected`}</strong>
      <TriageActions
        states={allMatching ? ['open', 'resolved', 'muted'] : selectedIssues.map((issue) => issue.state)}
        busy={busy}
        onChoose={(choice) => void actions.applyChoice(selection, choice)}
      />
      <Menu
        label={busy === 'assign' ? 'Assigning…' : 'Assign'}
        disabled={busy !== null}
        items={[
          ...(me.user_id !== null ? [{ label: 'Assign to me', onSelect: () => void actions.assign(selection, `user:${me.user_id}`, 'you') }] : []),
          ...teams.map((team) => ({
            label: `Assign to ${team.name} (team)`,
            onSelect: () => void actions.assign(selection, `team:${team.id}`, team.name),
          })),
          { label: 'Unassign', onSelect: () => void actions.assign(selection, null, '') },
        ]}
      />
      {!allMatching && selectedIssues.length >= 2 && (
        <button type="button" class="btn btn-small" disabled={busy !== null} onClick={() => setConfirmMerge(true)}>
          Merge
        </button>
      )}
      {offerAllMatching !== null && (
        <button type="button" class="btn btn-small btn-link" onClick={onSelectAllMatching}>
          Select all {about}
          {offerAllMatching.toLocaleString()} matching this search
        </button>
      )}
      <button type="button" class="btn btn-small btn-link" onClick={onClear}>
        Clear selection
      </button>
      {confirmMerge && survivor && (
        <div class="merge-confirm" role="alertdialog" aria-label="Confirm merge">
          <span>
            Merge {plural(selectedIssues.length - 1, 'issue')} into <strong>{survivor.short_id}</strong> (the one with the most events)? Their events and
            later ones of their groups go to it. This cannot be undone.
          </span>
          <button
            type="button"
            class="btn btn-small btn-danger"
            disabled={busy !== null}
            onClick={() =>
              void actions
                .merge(
                  survivor,
                  selectedIssues.filter((issue) => issue.id !== survivor.id).map((issue) => issue.id),
                )
                .then(() => setConfirmMerge(false))
            }
          >
            {busy === 'merge' ? 'Merging…' : `Merge into ${survivor.short_id}`}
          </button>
          <button type="button" class="btn btn-small" onClick={() => setConfirmMerge(false)}>
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}
