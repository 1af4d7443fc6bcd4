import { useState } from 'preact/hooks';
import { useCan } from '../access';
import { useSubmit } from '../actions';
import { ErrorMessage } from '../components';

/**
 * Mute or unmute, edit and delete (after a confirmation) on a monitor's page, for those who may
 * change the project. `mute` saves the new state; `remove` deletes the monitor and leaves the page.
 */
export function MonitorActions({
  muted,
  editHref,
  mute,
  remove,
  what,
}: {
  muted: boolean;
  editHref: string;
  mute: (muted: boolean) => Promise<void>;
  remove: () => Promise<void>;
  /** What deleting loses, in words. */
  what: string;
}) {
  const canWrite = useCan()('project:write');
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useSubmit();
  if (!canWrite) return null;
  return (
    <>
      <div class="monitor-actions">
        <button type="button" class="btn btn-small" disabled={busy} onClick={() => void run(() => mute(!muted))}>
          {muted ? 'Unmute' : 'Mute'}
        </button>
        <a class="btn btn-small" href={editHref}>
          Edit
        </a>
        {!confirming && (
          <button type="button" class="btn btn-small btn-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
        {confirming && (
          <span class="inline-actions" role="group" aria-label="Confirm deletion">
            <span class="small">Delete this monitor? {what}</span>
            <button type="button" class="btn btn-small btn-danger" disabled={busy} onClick={() => void run(remove)}>
              {busy ? 'Deleting…' : 'Delete monitor'}
            </button>
            <button type="button" class="btn btn-small" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        )}
      </div>
      <ErrorMessage error={error} />
    </>
  );
}
