import { ProjectKeyChanges } from '../projects/project-key-changes';
import { ProjectKeyRow, ProjectsRepository } from '../projects/projects.repository';
import { checkKey, PROJECT_KEYS_MISS_REFRESH_MS, ProjectKeyEntry, ProjectKeys } from './project-keys';

const CURRENT = '11111111-1111-4111-8111-111111111111';
const PREVIOUS = '22222222-2222-4222-8222-222222222222';
const OTHER = '33333333-3333-4333-8333-333333333333';
const EXPIRES = Date.UTC(2026, 0, 1, 12);

describe('checkKey', () => {
  const rotated: ProjectKeyEntry = { key: CURRENT, previousKey: PREVIOUS, previousExpiresAt: EXPIRES };

  it('accepts the current key whatever the time', () => {
    expect(checkKey(rotated, CURRENT, EXPIRES + 86_400_000)).toBe('valid');
    expect(checkKey({ key: CURRENT, previousKey: null, previousExpiresAt: 0 }, CURRENT, EXPIRES)).toBe(
      'valid',
    );
  });

  it('accepts the previous key until its expiry, to the millisecond', () => {
    expect(checkKey(rotated, PREVIOUS, EXPIRES - 3_600_000)).toBe('valid');
    expect(checkKey(rotated, PREVIOUS, EXPIRES - 1)).toBe('valid');
    expect(checkKey(rotated, PREVIOUS, EXPIRES)).toBe('expired');
    expect(checkKey(rotated, PREVIOUS, EXPIRES + 1)).toBe('expired');
  });

  it('leaves other keys and unknown projects to a reload', () => {
    expect(checkKey(rotated, OTHER, EXPIRES - 1)).toBe('unknown');
    expect(checkKey(undefined, CURRENT, EXPIRES)).toBe('unknown');
    // Without a rotation there is no previous key to match, not even a null one.
    expect(checkKey({ key: CURRENT, previousKey: null, previousExpiresAt: 0 }, OTHER, 0)).toBe('unknown');
  });
});

describe('ProjectKeys', () => {
  const row = (id: number, key: string): ProjectKeyRow => ({
    id,
    client_key: key,
    previous_client_key: null,
    previous_client_key_expires_at: null,
  });

  /** A repository whose loads the test answers one by one, in order. */
  function controlledLoads() {
    const pending: ((rows: ProjectKeyRow[]) => void)[] = [];
    const repository = {
      clientKeys: () => new Promise<ProjectKeyRow[]>((resolve) => pending.push(resolve)),
    } as unknown as ProjectsRepository;
    return { repository, pending };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  it('does not take a load that was under way when a key missed as the answer to that miss', async () => {
    const { repository, pending } = controlledLoads();
    const keys = new ProjectKeys(repository, new ProjectKeyChanges());
    const first = keys.isValid(1, CURRENT);
    await until(() => pending.length === 1);
    pending[0]([row(1, CURRENT)]);
    expect(await first).toBe(true);

    // A second load starts (the periodic one), reading the keys before project 2 exists; it is slow,
    // and the interval between reloads for misses has passed while it runs...
    const underWay = keys.refresh();
    await until(() => pending.length === 2);
    await new Promise((resolve) => setTimeout(resolve, PROJECT_KEYS_MISS_REFRESH_MS + 100));
    // ...project 2 is created, and its first request misses while that load is still running.
    const miss = keys.isValid(2, OTHER);
    pending[1]([row(1, CURRENT)]);
    await underWay;
    // The miss is answered by a load of its own, which finds the new project.
    let answer: boolean | undefined;
    void Promise.resolve(miss).then((valid) => (answer = valid));
    await until(() => pending.length === 3 || answer !== undefined);
    expect(answer).toBeUndefined();
    pending[2]([row(1, CURRENT), row(2, OTHER)]);
    expect(await miss).toBe(true);
  });
});
