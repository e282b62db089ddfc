/**
 * A refresh fixes the process's malloc mmap threshold before its parse Workers start
 * (`fixMallocThreshold`, `src/indexer/heap.ts`): after a large block is freed, blocks above the
 * threshold still get pages of their own (handed back when freed) instead of being carved from
 * an arena, as glibc's moving threshold would. Measured in a child process (the setting is
 * process-wide), by glibc's own count of mmapped blocks (`mallinfo2().hblks`).
 */
import assert from "node:assert/strict";
import { MMAP_THRESHOLD } from "../src/indexer/heap.ts";

const HEAP_TS = new URL("../src/indexer/heap.ts", import.meta.url).href;
const BLOCKS = 16;

/** The child: optionally fixes the threshold, frees a 4 MiB block, then holds 16 larger ones. */
const CHILD = `
import { fixMallocThreshold } from "${HEAP_TS}";
const libc = Deno.dlopen("libc.so.6", {
  malloc: { parameters: ["usize"], result: "pointer" },
  free: { parameters: ["pointer"], result: "void" },
  mallinfo2: { parameters: [], result: { struct: Array(10).fill("usize") } },
});
const mmapped = () => Number(new BigUint64Array(libc.symbols.mallinfo2().buffer)[3]);
const fixed = Deno.args[0] === "fix" ? fixMallocThreshold() : null;
// A freed mmapped block raises glibc's moving threshold to its size.
libc.symbols.free(libc.symbols.malloc(4n * 1024n * 1024n));
const before = mmapped();
const held = Array.from({ length: ${BLOCKS} }, () => libc.symbols.malloc(BigInt(${MMAP_THRESHOLD} * 4)));
const after = mmapped();
for (const block of held) libc.symbols.free(block);
console.log(JSON.stringify({ fixed, before, after }));
`;

async function child(mode: "fix" | "default") {
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(script, CHILD);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", script, mode],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    return JSON.parse(new TextDecoder().decode(output.stdout)) as {
      fixed: boolean | null;
      before: number;
      after: number;
    };
  } finally {
    await Deno.remove(script);
  }
}

Deno.test({
  name: "fixMallocThreshold: blocks above the threshold stay mmapped after a large free",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // glibc's default: the freed 4 MiB block moved the threshold, the blocks come from an arena.
    // (Either way a block may be served by a free chunk the arena already holds.)
    const moving = await child("default");
    assert.ok(moving.after - moving.before < BLOCKS / 2, `default: ${JSON.stringify(moving)}`);
    const fixed = await child("fix");
    assert.equal(fixed.fixed, true, "glibc took the threshold");
    assert.ok(fixed.after - fixed.before >= BLOCKS - 2, `fixed: ${JSON.stringify(fixed)}`);
  },
});
