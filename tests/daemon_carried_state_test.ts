// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
/**
 * A daemon's query Worker carries per-generation state from one generation to the next (the
 * chunk table's rows of unchanged files, the vector index's values of contents it held): after
 * edits of every kind, with generations asked about and generations skipped, its answers equal
 * those of a reader that read the same target whole.
 */
import assert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { DaemonClient } from "../src/daemon/client.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, startDaemon, tempCache } from "./_helpers.ts";

/** A Python module of `n` functions long enough to be chunks of their own. */
function module(name: string, n: number, seed: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `def ${name}_${i}(value, limit=${seed}):\n` +
      Array.from({ length: 30 }, (_, j) => `    value = value * ${j + i} + limit\n`).join("") +
      "    return value\n",
  ).join("\n\n");
}

const QUERIES = ["parse value limit", "retry_step value", "alpha_1", "limit value multiply"];

/** What an answer says, without what differs between two processes (trace ids, cursors). */
function gist(answer: any): unknown {
  return answer.results.map((hit: any) => [hit.path, hit.start_line, hit.symbol, hit.score]);
}

Deno.test("daemon (real socket): answers after carried generations equal a whole read of the same target", async () => {
  const root = fixtureRepository({
    "pkg/alpha.py": module("alpha", 3, 1),
    "pkg/beta.py": module("beta", 4, 2),
    "pkg/gamma.py": module("gamma", 2, 3),
    "pkg/retry.py": module("retry_step", 3, 4),
  });
  const cache = tempCache();
  const daemon = await startDaemon({ workspace: root, cache });
  const client = await DaemonClient.connect(daemon.socket);
  const ask = (query: string, strategy: string) =>
    client.request("search", { query, strategy, limit: 8, refresh: false }) as Promise<any>;
  try {
    await client.request("refresh", {});
    for (const query of QUERIES) await ask(query, "hybrid");
    const edits: (() => void)[] = [
      () =>
        Deno.writeTextFileSync(`${root}/pkg/alpha.py`, "# moved down\n\n" + module("alpha", 3, 1)),
      () => Deno.writeTextFileSync(`${root}/pkg/delta.py`, module("delta", 3, 5)),
      () => Deno.removeSync(`${root}/pkg/gamma.py`),
      () => Deno.renameSync(`${root}/pkg/beta.py`, `${root}/pkg/beta_two.py`),
      // The content of a deleted file again, under another module.
      () => Deno.writeTextFileSync(`${root}/pkg/gamma_again.py`, module("gamma", 2, 3)),
      () => Deno.removeSync(`${root}/pkg/alpha.py`),
      // The file written last again (its rows hold the highest ids), its content moved down.
      () =>
        Deno.writeTextFileSync(`${root}/pkg/gamma_again.py`, "# moved\n\n" + module("gamma", 3, 7)),
    ];
    for (const [round, edit] of edits.entries()) {
      edit();
      await client.request("refresh", {});
      // Every other generation is skipped: the next one carries from two generations back.
      if (round % 2 === 1) continue;
      const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
      try {
        for (const query of QUERIES) {
          for (const strategy of ["hybrid", "lexical", "vector"]) {
            const carried = await ask(query, strategy);
            const whole = await runAction(workspace, "search", {
              query,
              strategy,
              limit: 8,
              refresh: false,
            });
            assert.deepEqual(gist(carried), gist(whole), `round ${round}, ${strategy} '${query}'`);
          }
        }
      } finally {
        workspace.close();
      }
    }
  } finally {
    client.close();
    await daemon.stop();
  }
});
