/**
 * The error of class `type` that `work` throws, for a test to read its message or status; fails
 * the test when `work` throws nothing or an error of another class.
 */
export function thrownBy<E extends Error>(type: new (...args: never[]) => E, work: () => unknown): E {
  try {
    work();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
