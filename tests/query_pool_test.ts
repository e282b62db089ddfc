/** The daemon's query Workers: a cancelled request stops its work in the Worker. */
import assert from "node:assert/strict";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { fixtureRepository, slowGrepFixture, startDaemon } from "./_helpers.ts";

Deno.test("daemon (real socket): a cancelled query stops in its Worker; the next one is not held up", async () => {
  const daemon = await startDaemon({
    // Enough files that the whole scan outlasts a second even with grep's finer parse plans.
    workspace: fixtureRepository(slowGrepFixture(2400)),
    args: ["--query-workers", "1"],
  });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    await client.request("refresh", {});
    const grep = (timeout: number) =>
      client.request("grep", { pattern: "$A ** $B", language: "python", timeout_ms: timeout });
    // The whole scan, for scale (a distinct timeout keeps the answer cache out of it).
    let started = performance.now();
    const full = await grep(599_999) as { data: { files_parsed: number } };
    const fullMs = performance.now() - started;
    assert.equal(full.data.files_parsed, 2400);
    assert.ok(fullMs > 1000, `the scan takes long enough to cancel (${Math.round(fullMs)} ms)`);

    const id = client.nextId;
    const long = grep(600_000);
    await new Promise((resolve) => setTimeout(resolve, Math.min(300, fullMs / 10)));
    started = performance.now();
    await client.notify("$/cancelRequest", { id });
    await assert.rejects(
      long,
      (error) => error instanceof RpcFailure && error.code === ErrorCode.RequestCancelled,
    );
    // The one query Worker is free again long before the cancelled scan would have ended.
    const search = await client.request("search", { query: "f_3_7" }) as { results: unknown[] };
    const afterMs = performance.now() - started;
    assert.ok(search.results.length > 0);
    assert.ok(
      afterMs < fullMs / 2,
      `answered ${Math.round(afterMs)} ms after the cancel; the scan takes ${
        Math.round(fullMs)
      } ms`,
    );
  } finally {
    client.close();
    await daemon.stop();
  }
});
