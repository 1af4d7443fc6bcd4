import { useState } from 'preact/hooks';
import { errorMessage } from './api';

/**
 * An action on one row of a list (revoke, delete, sign out): which row is busy, and the last action's
 * error. `act` runs one and says whether it succeeded.
 */
export function useRowAction<Key>() {
  const [pending, setPending] = useState<Key | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (key: Key, action: () => Promise<void>): Promise<boolean> => {
    setPending(key);
    setError(null);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      setPending(null);
    }
  };
  return { pending, error, setError, act };
}

/** A form's submit: busy while its action runs, then the action's error if it failed (a row action of one row). */
export function useSubmit() {
  const { pending, error, setError, act } = useRowAction<true>();
  /** Runs `action`; says whether it succeeded (its error is then shown by `error`). */
  const run = (action: () => Promise<void>): Promise<boolean> => act(true, action);
  return { busy: pending !== null, error, setError, run };
}
