// Answers and traces are untyped JSON.
// deno-lint-ignore-file no-explicit-any
/** One request, one trace id: the answer's `trace_id` is the one the daemon's trace carries. */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, startDaemon } from "./_helpers.ts";

/** Functions long enough to be chunks of their own. */
const RETRY = Array.from(
  { length: 4 },
  (_, i) =>
    `def retry_step_${i}(call, attempts=${i}):\n` +
    Array.from({ length: 30 }, (_, j) => `    value_${j} = call(${j}, attempts)\n`).join("") +
    "    return call()\n",
).join("\n\n");

const FILES = {
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "src/retry.py": RETRY,
};

/** The `request` traces the daemon wrote so far (JSON lines on stderr). */
function requestTraces(stderr: string): any[] {
  return stderr.split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((event) => event.event === "request");
}

Deno.test("daemon (real socket): an answer's trace_id is the one its request trace logs, with the backend, the fallback reason and where it ran; refresh traces count reused vectors", async () => {
  const root = fixtureRepository(FILES);
  const daemon = await startDaemon({ workspace: root, args: ["--log-format", "json"] });
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
    // The refresh trace says how many chunk vectors were computed and how many reused.
    Deno.writeTextFileSync(
      `${root}/src/retry.py`,
      RETRY + "\n\ndef later():\n    return 2\n",
    );
    await client.request("refresh", {});
    const refreshes = daemon.stderr().split("\n").filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line)).filter((event) => event.event === "refresh");
    assert.equal(refreshes.length, 2);
    assert.ok(refreshes[0].vectors.computed > 0, JSON.stringify(refreshes[0]));
    assert.ok(refreshes[1].vectors.reused > 0, JSON.stringify(refreshes[1]));
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
