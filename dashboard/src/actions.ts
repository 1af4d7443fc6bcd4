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

/**
 * The on/off switch of a list's rows (channels, alert rules), as a row action: the switch moves at
 * once, then shows what the server saved, or moves back when it refuses.
 */
export function useEnabledSwitch<Row extends { id: number; is_enabled: boolean }>(rows: Row[], setRows: (rows: Row[]) => void) {
  const action = useRowAction<number>();
  const toggle = (row: Row, save: (enabled: boolean) => Promise<Row>) => {
    const replace = (value: Partial<Row>) => setRows(rows.map((other) => (other.id === row.id ? { ...other, ...value } : other)));
    return action.act(row.id, async () => {
      replace({ is_enabled: !row.is_enabled } as Partial<Row>);
      try {
        replace(await save(!row.is_enabled));
      } catch (failure) {
        replace({ is_enabled: row.is_enabled } as Partial<Row>);
        throw failure;
      }
    });
  };
  return { ...action, toggle };
}
