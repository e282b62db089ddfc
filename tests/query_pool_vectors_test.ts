/** The daemon's query Workers share vector indexes, each handed to a Worker once. */
import assert from "node:assert/strict";
import { QueryPool } from "../src/daemon/query_pool.ts";
import type { Envelope } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

Deno.test("query pool: a vector index one Worker loads reaches each other Worker once, never back to its loader", async () => {
  const root = fixtureRepository({
    "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts;\n}\n",
    "src/cookies.ts":
      "export function mergeCookies(jar: Map<string, string>) {\n  return jar;\n}\n",
  });
  const cache = tempCache();
  const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
  try {
    await workspace.refresh(workspace.repositories[0]);
  } finally {
    workspace.close();
  }
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  try {
    await pool.ready();
    const job = (action: string, params: Record<string, unknown>) => ({
      epoch: 1,
      workspace: { directory: root, cacheDirectory: cache },
      agent: "test",
      action,
      params,
    });
    const search = (query: string) => pool.run(job("search", { query }));
    // One at a time: the first free Worker takes each; the first search loads the index there.
    for (const query of ["retry backoff", "merge cookies", "attempts", "jar"]) {
      const answer = await search(query) as Envelope & { results: unknown[] };
      assert.ok(answer.results.length > 0, query);
    }
    // Two at a time: both Workers search.
    for (const pair of [["retry", "cookies"], ["backoff", "merge"], ["attempts", "jar map"]]) {
      await Promise.all(pair.map(search));
    }
    const counts = await Promise.all(
      [0, 1].map(() => pool.run(job("handovers", {})) as Promise<{ data: { carried: number[] } }>),
    );
    const carried = counts.map((answer) => answer.data.carried);
    assert.equal(carried.length, 2);
    assert.ok(carried.every((jobs) => jobs.length > 0), JSON.stringify(carried));
    // One index (one target, one model, one generation): handed over at most once in all, to
    // the Worker that did not load it, and never with every job.
    const handed = carried.flat().reduce((sum, n) => sum + n, 0);
    assert.ok(
      handed <= 1,
      `indexes handed over, per job of each Worker: ${JSON.stringify(carried)}`,
    );
  } finally {
    pool.close();
  }
});
