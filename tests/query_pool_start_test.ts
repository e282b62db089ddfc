/**
 * A query pool whose Workers can no longer start (`_breakable_query_worker.ts`) answers the
 * jobs waiting and those asked next with the reason after `START_ATTEMPTS` failures in a row,
 * instead of holding them for a Worker that never comes, and serves again once one starts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { QueryPool, START_ATTEMPTS } from "../src/daemon/query_pool.ts";
import { tempDirectory, within } from "./_helpers.ts";

Deno.test("query pool: Workers that cannot start again fail the jobs with the reason, not forever; the pool serves once one starts", async () => {
  const directory = tempDirectory({ prefix: "sextant-query-start-" });
  const marker = join(directory, "broken");
  Deno.env.set("SEXTANT_TEST_UNSTARTABLE", marker);
  const pool = new QueryPool(1, {
    module: new URL("./_breakable_query_worker.ts", import.meta.url),
  });
  const job = (action: string, params: Record<string, unknown> = {}) =>
    pool.run({ epoch: 1, workspace: { directory }, agent: "test", action, params });
  try {
    await pool.ready();
    assert.deepEqual((await job("echo", { n: 1 })).data, { n: 1 });
    // The installation breaks, then the Worker fails: its replacements cannot load.
    Deno.writeTextFileSync(marker, "");
    const crashed = job("crash");
    const waiting = job("echo", { n: 2 });
    await assert.rejects(within(crashed, 10_000, "the crashed job"), /The query Worker failed/);
    const unstartable = new RegExp(`cannot start \\(${START_ATTEMPTS} in a row failed\\)`);
    await assert.rejects(within(waiting, 10_000, "a job waiting"), (error: Error) => {
      assert.match(error.message, unstartable);
      assert.match(error.message, /this query Worker cannot load/);
      return true;
    });
    await assert.rejects(within(job("echo"), 1_000, "a later job"), unstartable);
    // Repaired: a retry starts a Worker and the pool answers again.
    Deno.removeSync(marker);
    const answered = await within(
      (async () => {
        for (;;) {
          try {
            return await job("echo", { n: 3 });
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      })(),
      15_000,
      "a job once Workers start again",
    );
    assert.deepEqual(answered.data, { n: 3 });
  } finally {
    pool.close();
    Deno.env.delete("SEXTANT_TEST_UNSTARTABLE");
    Deno.removeSync(directory, { recursive: true });
  }
});
