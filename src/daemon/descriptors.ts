/**
 * The daemon's open-file budget. A Worker that starts when no descriptor is
 * left cannot be caught: Deno aborts the whole process while building the
 * Worker's event loop. So the daemon keeps a reserve for its own needs and
 * spawns a Worker only when that reserve is there.
 *
 * Linux only (`/proc/self`); elsewhere nothing is known and nothing is held back.
 */

/** Descriptors one running Worker holds (its event loop, wakeups, message channels). */
export const WORKER_DESCRIPTORS = 8;
/** Descriptors a starting Worker may have open at once while it loads its modules. */
export const MODULE_LOAD_DESCRIPTORS = 16;

/** The soft open-file limit of this process, or null when it is not known. */
export function openFileLimit(): number | null {
  return readLimit().limit;
}

function readLimit(): { limit: number | null; exhausted: boolean } {
  try {
    const limits = Deno.readTextFileSync("/proc/self/limits");
    const match = /^Max open files\s+(\d+)/m.exec(limits);
    return { limit: match ? Number(match[1]) : null, exhausted: false };
  } catch (error) {
    return { limit: null, exhausted: isDescriptorExhaustion(error) };
  }
}

/**
 * Descriptors this process holds now, or null when they cannot be counted.
 * Listing them needs a descriptor itself: when none is left the count is the limit.
 */
export function openDescriptors(): number | null {
  return countOpen().open;
}

function countOpen(): { open: number | null; exhausted: boolean } {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) count++;
    return { open: count - 1, exhausted: false }; // the listing's own
  } catch (error) {
    const exhausted = isDescriptorExhaustion(error);
    return { open: exhausted ? openFileLimit() : null, exhausted };
  }
}

/**
 * Whether `need` more descriptors are free now; by default, what a Worker
 * needs to start. False when even looking needs a descriptor that is not
 * there; true when the budget cannot be known (not Linux).
 */
export function descriptorsFree(need = WORKER_DESCRIPTORS + MODULE_LOAD_DESCRIPTORS): boolean {
  const { limit, exhausted } = readLimit();
  if (exhausted) return false;
  const counted = countOpen();
  if (counted.exhausted) return false;
  if (limit === null || counted.open === null) return true;
  return limit - counted.open >= need;
}

/** Whether an error says the process (EMFILE) or the system (ENFILE) ran out of descriptors. */
export function isDescriptorExhaustion(error: unknown): boolean {
  return /too many open files|os error 2[34]\b/i.test(`${(error as Error)?.message ?? error}`);
}
