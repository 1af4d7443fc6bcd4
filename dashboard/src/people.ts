import { useEffect } from 'preact/hooks';
import { call, client, Member, Team } from './api';
import { Async, useAsync } from './components';

/**
 * Long enough that moving between pages asks once, short enough that someone joining or a team
 * made in another tab shows up without reloading.
 */
const FRESH_MS = 30_000;

/**
 * A list many pages read (to name people, to offer them in pickers): one request serves every page
 * that shows it while it is fresh. A change made here forgets it (`refresh`, `reload`, `setData` of
 * the hook, or `forget`), and every page showing it reads it again.
 */
function sharedList<T>(load: () => Promise<T[]>) {
  let answer: { promise: Promise<T[]>; at: number } | null = null;
  const showing = new Set<() => void>();
  const read = (): Promise<T[]> => {
    if (answer && Date.now() - answer.at < FRESH_MS) return answer.promise;
    const promise = load();
    const mine = { promise, at: Date.now() };
    answer = mine;
    // A refusal or a network error is not kept: the next page (or Retry) asks again.
    promise.catch(() => {
      if (answer === mine) answer = null;
    });
    return promise;
  };
  const forget = (except?: () => void) => {
    answer = null;
    for (const refresh of showing) if (refresh !== except) refresh();
  };
  const use = (): Async<T[]> => {
    const list = useAsync(read, []);
    useEffect(() => {
      showing.add(list.refresh);
      return () => void showing.delete(list.refresh);
    }, [list.refresh]);
    return {
      ...list,
      reload: () => {
        forget(list.refresh);
        list.reload();
      },
      refresh: () => forget(),
      setData: (data: T[]) => {
        answer = { promise: Promise.resolve(data), at: Date.now() };
        list.setData(data);
        for (const refresh of showing) if (refresh !== list.refresh) refresh();
      },
    };
  };
  return { use, forget: () => forget() };
}

const members = sharedList(() => call(client.GET('/api/members')).then((r) => r.data));
const teams = sharedList(() => call(client.GET('/api/teams')).then((r) => r.data));

/** Every account of the tracker (GET /api/members), shared between the pages that show them. */
export const useMembers: () => Async<Member[]> = members.use;
/** Every team (GET /api/teams), shared between the pages that show them. */
export const useTeams: () => Async<Team[]> = teams.use;

/** Forgets the members and teams read so far: after a change elsewhere, or when someone else signs in. */
export function forgetPeople(): void {
  members.forget();
  teams.forget();
}

export interface People {
  members: Member[];
  teams: Team[];
}

/** Members and teams together, for naming whoever an issue's assignee or activity is about. */
export function usePeople(): { data: People | undefined; error: string | null } {
  const memberList = useMembers();
  const teamList = useTeams();
  const data = memberList.data && teamList.data ? { members: memberList.data, teams: teamList.data } : undefined;
  return { data, error: memberList.error ?? teamList.error };
}
