// Answers and traces are untyped JSON.
// deno-lint-ignore-file no-explicit-any
/** One request, one trace id: the answer's `trace_id` is the one the daemon's trace carries. */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, startDaemon } from "./_helpers.ts";

const FILES = {
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "src/retry.py": "def retry_with_backoff(call):\n    return call()\n",
};

/** The `request` traces the daemon wrote so far (JSON lines on stderr). */
function requestTraces(stderr: string): any[] {
  return stderr.split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((event) => event.event === "request");
}

Deno.test("daemon (real socket): an answer's trace_id is the one its request trace logs, with the backend, the fallback reason and where it ran", async () => {
  const daemon = await startDaemon({
    workspace: fixtureRepository(FILES),
    args: ["--log-format", "json"],
  });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const traceOf = async (answer: any) => {
      // The trace is written right after the answer is queued; give stderr a moment.
      for (let i = 0; i < 50; i++) {
        const found = requestTraces(daemon.stderr()).filter((t) => t.trace_id === answer.trace_id);
        if (found.length > 0) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return [];
    };
    // No target yet: the live scan answers on the main thread, and says why.
    const live = await client.request("search", { query: "parseConfig", refresh: false }) as any;
    assert.equal(live.provenance.fallback_used, true, JSON.stringify(live.provenance));
    const [liveTrace, ...extraLive] = await traceOf(live);
    assert.ok(liveTrace, `no trace carries ${live.trace_id}`);
    assert.equal(extraLive.length, 0);
    assert.equal(liveTrace.method, "search");
    assert.equal(liveTrace.backend, live.provenance.backend);
    assert.equal(liveTrace.fallback, live.provenance.fallback_reason);
    assert.match(liveTrace.runner, /^main thread \(a target is missing or damaged\)$/);

    await client.request("refresh", {});
    const first = await client.request("symbols", { query: "parseConfig" }) as any;
    const again = await client.request("symbols", { query: "parseConfig" }) as any;
    assert.notEqual(first.trace_id, again.trace_id, "each request has its own id");
    const [firstTrace] = await traceOf(first);
    const [againTrace] = await traceOf(again);
    assert.ok(firstTrace && againTrace, "both answers' ids are in the traces");
    assert.equal(firstTrace.backend, first.provenance.backend);
    assert.equal(firstTrace.runner, "query Worker");
    assert.equal(againTrace.cached, true);
    assert.equal(againTrace.runner, "cache");
    assert.equal(firstTrace.fallback, undefined);

    const status = await client.request("status") as any;
    assert.equal((await traceOf(status))[0]?.method, "status");
  } finally {
    client.close();
    await daemon.stop();
  }
});
