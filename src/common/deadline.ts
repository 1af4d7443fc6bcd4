/**
 * `work`, or a rejection with `message` once `ms` have passed without an answer. A late rejection of
 * `work` is swallowed: nobody waits for it any more, and it must not surface as unhandled.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error) {
    work.catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
