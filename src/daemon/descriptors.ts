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
  try {
    const limits = Deno.readTextFileSync("/proc/self/limits");
    const match = /^Max open files\s+(\d+)/m.exec(limits);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Descriptors this process holds now, or null when they cannot be counted.
 * Listing them needs a descriptor itself: when none is left the count is the limit.
 */
export function openDescriptors(): number | null {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) count++;
    return count - 1; // the listing's own
  } catch (error) {
    if (isDescriptorExhaustion(error)) return openFileLimit();
    return null;
  }
}

/**
 * Whether `need` more descriptors are free now (true when the budget is not
 * known); by default, what a Worker needs to start.
 */
export function descriptorsFree(need = WORKER_DESCRIPTORS + MODULE_LOAD_DESCRIPTORS): boolean {
  const limit = openFileLimit();
  const open = openDescriptors();
  if (limit === null || open === null) return true;
  return limit - open >= need;
}

/** Whether an error says the process (EMFILE) or the system (ENFILE) ran out of descriptors. */
export function isDescriptorExhaustion(error: unknown): boolean {
  return /too many open files|os error 2[34]\b/i.test(`${(error as Error)?.message ?? error}`);
}
