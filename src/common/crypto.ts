import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** Raised instead of queueing yet another password hash: the caller answers "busy, retry". */
export class HashingBusyError extends Error {
  constructor() {
    super('too many password checks in progress');
  }
}

/**
 * At most `concurrency` tasks at once, at most `maxWaiting` more in line; beyond that `run` fails at
 * once with HashingBusyError rather than letting the line (and everyone's wait) grow without end.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) {
      this.active++;
    } else if (this.waiting.length < this.maxWaiting) {
      // The slot is handed over by the task that finishes, so `active` already counts this one.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      throw new HashingBusyError();
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/**
 * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * ingest's decompression, DNS lookups and file reads share. Each hash holds a thread for about
 * 100 ms: a burst of sign-ins would otherwise hold every thread for as long as it lasts. Two at a
 * time leave the rest free; sixteen in line are under a second of waiting.
 */
const scryptSlots = new Semaphore(2, 16);

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Password hash in a self-describing format so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptSlots.run(() => scryptAsync(password, salt, KEY_LENGTH, SCRYPT));
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await scryptSlots.run(() =>
    scryptAsync(password, Buffer.from(saltB64, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: SCRYPT.maxmem,
    }),
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
