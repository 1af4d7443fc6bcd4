import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, client, errorMessage } from '../api';
import { ErrorMessage } from '../components';

/** How often, and how long, the page asks whether the test event is stored. */
const POLL_MS = 1_000;
const GIVE_UP_MS = 60_000;

type Progress =
  | { step: 'idle' }
  | { step: 'sending' }
  | { step: 'waiting'; eventId: string }
  | { step: 'arrived'; eventId: string; issueId: number; shortId: string | null }
  | { step: 'late'; eventId: string }
  | { step: 'failed'; error: string };

/**
 * "Send a test event": the server puts one on the digest queue as ingest does with an SDK's, and the
 * page asks for it until it is stored, then links to its issue. Shows the whole path working.
 */
export function TestEvent({ projectId, onStored }: { projectId: number; onStored?: () => void }) {
  const [progress, setProgress] = useState<Progress>({ step: 'idle' });
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  const waitFor = async (eventId: string) => {
    const deadline = Date.now() + GIVE_UP_MS;
    while (alive.current && Date.now() < deadline) {
      try {
        const event = await call(client.GET('/api/events/{id}', { params: { path: { id: eventId } } }));
        const issue = await call(client.GET('/api/issues/{id}', { params: { path: { id: event.issue_id } } })).catch(() => null);
        if (!alive.current) return;
        setProgress({ step: 'arrived', eventId, issueId: event.issue_id, shortId: issue?.short_id ?? null });
        onStored?.();
        return;
      } catch (failure) {
        // 404 until the digest has stored it.
        if (!(failure instanceof ApiError && failure.status === 404)) throw failure;
      }
      await new Promise((resolve) => window.setTimeout(resolve, POLL_MS));
    }
    if (alive.current) setProgress({ step: 'late', eventId });
  };

  const send = async () => {
    setProgress({ step: 'sending' });
    try {
      const { event_id: eventId } = await call(client.POST('/api/projects/{id}/test-event', { params: { path: { id: projectId } } }));
      setProgress({ step: 'waiting', eventId });
      await waitFor(eventId);
    } catch (failure) {
      if (alive.current) setProgress({ step: 'failed', error: errorMessage(failure) });
    }
  };

  const busy = progress.step === 'sending' || progress.step === 'waiting';
  return (
    <div class="test-event">
      <p class="setup-step">3. Check the path from here to the issue list without an SDK:</p>
      <div class="inline-actions">
        <button type="button" class="btn btn-small" disabled={busy} onClick={() => void send()}>
          {busy ? 'Sending…' : 'Send a test event'}
        </button>
        <span role="status" aria-live="polite" class="test-event-status">
          {progress.step === 'sending' && <span class="muted">Sending…</span>}
          {progress.step === 'waiting' && (
            <span class="waiting-inline">
              <span class="spinner" aria-hidden="true" /> Queued; waiting for it to be stored…
            </span>
          )}
          {progress.step === 'arrived' && (
            <span class="test-event-arrived">
              ✓ Arrived:{' '}
              <a href={`/issues/${progress.issueId}?event=${progress.eventId}`}>{progress.shortId ? `issue ${progress.shortId}` : 'open its issue'}</a>
            </span>
          )}
          {progress.step === 'late' && (
            <span class="warning-text">
              Not stored after a minute: the digest worker may be down or behind (see <a href="/health/ready">/health/ready</a>).
            </span>
          )}
        </span>
      </div>
      {progress.step === 'failed' && <ErrorMessage error={progress.error} />}
    </div>
  );
}
