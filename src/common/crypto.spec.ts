import { HashingBusyError, hashPassword, Semaphore, verifyPassword } from './crypto';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('Semaphore', () => {
  it('runs at most `concurrency` tasks at once, queues `maxWaiting` more and refuses the rest', async () => {
    const slots = new Semaphore(2, 1);
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (index: number) => async () => {
      started.push(index);
      peak = Math.max(peak, ++running);
      await gates[index].promise;
      running--;
      return index;
    };
    const results = [0, 1, 2].map((index) => slots.run(task(index)));
    await expect(slots.run(task(0))).rejects.toBeInstanceOf(HashingBusyError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);

    gates[1].resolve();
    await results[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    expect(await Promise.all(results)).toEqual([0, 1, 2]);
    expect(peak).toBe(2);
  });

  it('frees the slot of a task that fails', async () => {
    const slots = new Semaphore(1, 0);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});

describe('password hashing', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$abc')).toBe(false);
  });
});
