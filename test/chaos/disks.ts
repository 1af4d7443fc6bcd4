/**
 * Small disks for the chaos suite's PostgreSQL: size-limited tmpfs file systems the suite mounts
 * itself (which takes root), one for the data folder and one for the write-ahead log, so that a fault
 * can fill one of them to the last byte with a filler file and free it again. tmpfs only takes memory
 * as it is written to.
 */
import { execFile } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const MB = 1024 * 1024;

export class SmallDisk {
  readonly filler: string;
  private mounted = false;

  constructor(
    readonly mountPoint: string,
    readonly sizeMb: number,
  ) {
    this.filler = join(mountPoint, 'filler');
  }

  /** Mounts the tmpfs, mode 0700, owned by `owner`; throws when mounting is not allowed. */
  async mount(owner?: { uid: number; gid: number }): Promise<void> {
    mkdirSync(this.mountPoint, { recursive: true });
    await execFileAsync(
      'mount',
      ['-t', 'tmpfs', '-o', `size=${this.sizeMb}m,mode=0700`, 'tmpfs', this.mountPoint],
      { timeout: 10_000 },
    );
    this.mounted = true;
    if (owner) chownSync(this.mountPoint, owner.uid, owner.gid);
  }

  /** Unmounts it (lazily when busy); nothing when it was not mounted. */
  async unmount(): Promise<void> {
    if (!this.mounted) return;
    try {
      await execFileAsync('umount', [this.mountPoint], { timeout: 30_000 });
    } catch {
      await execFileAsync('umount', ['-l', this.mountPoint], { timeout: 30_000 });
    }
    this.mounted = false;
  }

  /** Bytes free, and bytes used, as `df` shows them. */
  usage(): { free: number; used: number } {
    const stats = statfsSync(this.mountPoint);
    return { free: stats.bavail * stats.bsize, used: (stats.blocks - stats.bfree) * stats.bsize };
  }

  /**
   * Fills the disk to 0 bytes free: the filler is allocated to nearly all the free space at once
   * (fallocate), then written to until the file system answers ENOSPC. Returns the filler's growth.
   */
  async fill(): Promise<number> {
    const free = this.usage().free;
    let grown = 0;
    if (free > 2 * MB) {
      try {
        await execFileAsync('fallocate', ['-o', '0', '-l', String(free - MB), this.filler], {
          timeout: 30_000,
        });
        grown = free - MB;
      } catch {
        // no fallocate: the writes below fill it all
      }
    }
    return grown + this.topUp();
  }

  /** Appends to the filler until ENOSPC (what another file freed is taken too); bytes appended. */
  topUp(): number {
    const chunk = Buffer.alloc(64 * 1024);
    const fd = openSync(this.filler, 'a');
    let written = 0;
    try {
      for (;;) written += writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
    return written;
  }

  /** Deletes the filler: the space is free again. */
  release(): void {
    rmSync(this.filler, { force: true });
  }
}

export const formatMb = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
