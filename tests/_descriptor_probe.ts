/**
 * Opens files until the process has no descriptor left, then prints what
 * `descriptorsFree` says, and again after giving some back (run under a low
 * `prlimit --nofile`).
 */
import { descriptorsFree, openDescriptors, openFileLimit } from "../src/daemon/descriptors.ts";

const held: Deno.FsFile[] = [];
const before = { limit: openFileLimit(), open: openDescriptors(), free: descriptorsFree() };
try {
  while (true) held.push(Deno.openSync("/dev/null"));
} catch { /* none left */ }
const exhausted = { free: descriptorsFree(), freeOne: descriptorsFree(1) };
for (const file of held.splice(0, 40)) file.close();
const relieved = { free: descriptorsFree(), open: openDescriptors() };
console.log(JSON.stringify({ before, exhausted, relieved, held: held.length }));
