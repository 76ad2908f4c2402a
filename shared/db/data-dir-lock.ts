import { readFileSync, unlinkSync } from "node:fs";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";

/**
 * One process per embedded data folder. PGlite has no lock of its own: two processes on one folder
 * both start, and each overwrites what the other wrote. The lock is a file naming its holder (pid,
 * host, start time), created exclusively; a file left by a process that no longer runs on this host
 * is taken over. Not a library: the lock libraries on npm decide staleness by a file's age, which
 * makes a restart after a crash wait, and they do not tell who holds the folder.
 */

class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
}

export interface DataDirLock {
  readonly file: string;
  release(): Promise<void>;
}

const LOCK_FILE = "lock.json";

export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const folder = path.resolve(dataDir);
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };

  // Two tries: the second after removing a stale file (another process may take it over first).
  for (let attempt = 0; attempt < 2; attempt++) {
    // Written whole beside it, then linked into place: link fails if the lock exists, and a
    // reader never sees a half-written file.
    const draft = `${file}.${process.pid}.tmp`;
    await writeFile(draft, `${JSON.stringify(me)}\n`);
    try {
      await link(draft, file);
      return lockHeldBy(file, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(draft).catch(() => {});
    }
    const holder = await readHolder(file);
    if (holder && isRunning(holder)) {
      throw new DataDirLockedError(
        `DATA_DIR ${folder} is in use by process ${holder.pid} on ${holder.host} (started ${holder.started_at}); ` +
          "stop it first, or give this process another DATA_DIR.",
      );
    }
    // Left by a process that is gone (killed, or the machine restarted): take it over.
    await unlink(file).catch(() => {});
  }
  throw new DataDirLockedError(`DATA_DIR ${folder} was locked by another process starting at the same time.`);
}

function lockHeldBy(file: string, me: LockHolder): DataDirLock {
  const releaseSync = () => {
    try {
      const holder = JSON.parse(readFileSync(file, "utf8")) as LockHolder;
      if (holder.pid === me.pid && holder.started_at === me.started_at) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  // A process.exit() that skips the orderly close still leaves no lock behind.
  process.once("exit", releaseSync);
  return {
    file,
    async release() {
      process.removeListener("exit", releaseSync);
      releaseSync();
    },
  };
}

async function readHolder(file: string): Promise<LockHolder | null> {
  try {
    const holder = JSON.parse(await readFile(file, "utf8")) as Partial<LockHolder>;
    if (typeof holder.pid !== "number" || typeof holder.host !== "string") return null;
    return { pid: holder.pid, host: holder.host, started_at: String(holder.started_at) };
  } catch {
    // Unreadable: not a lock this code wrote.
    return null;
  }
}

/** True when the holder still runs. On another host we cannot tell, so it counts as running. */
function isRunning(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that pid, so something runs there.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
