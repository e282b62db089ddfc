import assert from "node:assert/strict";
import { PROGRESS_TOTAL, progressReporter } from "../src/mcp/progress.ts";
import { provenanceLine } from "../src/mcp/render.ts";
import { inputSchemaOf, withDefaults } from "../src/mcp/tools.ts";
import { METHODS } from "../src/protocol/methods.ts";
import type { Envelope } from "../src/protocol/types.ts";

Deno.test("mcp progress: phases of several repositories become one value that only grows", () => {
  let clock = 0;
  const report = progressReporter(2, { intervalMs: 100, now: () => clock });
  const sent = [];
  const events: [string, "inventory" | "plan" | "parse" | "commit" | "done", number, number][] = [
    ["a", "inventory", 0, 0],
    ["a", "plan", 0, 0],
    ["a", "parse", 0, 10],
    ["a", "parse", 5, 10],
    ["a", "parse", 10, 10],
    ["a", "commit", 0, 0],
    ["a", "done", 10, 10],
    ["b", "inventory", 0, 0],
    ["b", "parse", 3, 4],
    ["b", "done", 4, 4],
  ];
  for (const [repo, phase, done, total] of events) {
    clock += 150;
    const step = report(repo, { phase, done, total });
    if (step) sent.push(step);
  }
  // Each repository has half; a commit or a next start that does not grow is left out.
  assert.deepEqual(sent.map((step) => step.progress), [0, 25, 50, 250, 450, 500, 850, 1000]);
  assert.ok(sent.every((step) => step.total === PROGRESS_TOTAL));
  assert.equal(sent[3].message, "a: parse 5/10");
  assert.equal(sent.at(-1)!.message, "b: done 4/4");
});

Deno.test("mcp progress: within a phase, at most one step per interval; the end of a phase always goes out", () => {
  let clock = 0;
  const report = progressReporter(1, { intervalMs: 100, now: () => clock });
  assert.ok(report("r", { phase: "parse", done: 1, total: 100 }));
  clock += 10;
  assert.equal(report("r", { phase: "parse", done: 2, total: 100 }), null);
  clock += 10;
  assert.ok(report("r", { phase: "parse", done: 100, total: 100 }));
  // A value that does not grow is never sent, even for a new phase.
  assert.equal(report("r", { phase: "plan", done: 0, total: 0 }), null);
});

Deno.test("mcp tools: the refresh default is the CLI's, and a schema takes the CLI's argument first", () => {
  assert.deepEqual(withDefaults("search", { query: "x" }), { query: "x", refresh: true });
  assert.deepEqual(withDefaults("search", { query: "x", refresh: false }), {
    query: "x",
    refresh: false,
  });
  assert.deepEqual(withDefaults("status", {}), {});
  for (const descriptor of Object.values(METHODS)) {
    const schema = inputSchemaOf(descriptor);
    const names = Object.keys(schema.properties ?? {});
    if (descriptor.argument) assert.equal(names[0], descriptor.argument, descriptor.name);
    if ("refresh" in descriptor.params) {
      // Read actions reconcile first; status reports the index as it is.
      const expected = descriptor.name === "status" ? undefined : true;
      assert.equal(schema.properties!.refresh.default, expected, descriptor.name);
    }
  }
});

Deno.test("mcp render: the provenance line names backend, confidence, freshness, fallback and the cursor", () => {
  const envelope: Envelope = {
    action: "search",
    results: [],
    provenance: {
      backend: "hybrid",
      confidence: "weak",
      fresh: false,
      fallback_used: true,
      fallback_reason: "live scan",
    },
    repositories: [],
    limitations: [],
    truncated: true,
    next_cursor: "abc def",
    trace_id: "t",
  };
  assert.equal(
    provenanceLine(envelope),
    'provenance: backend=hybrid confidence=weak fresh=false fallback=yes results=0 truncated=true next_cursor="abc def"',
  );
});
