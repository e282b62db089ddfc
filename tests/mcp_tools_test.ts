// Tool results are untyped JSON read back from the server.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { LIMITS, METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, runCli, tempCache } from "./_helpers.ts";
import { mcpEnvironment, startMcp, textOf } from "./_mcp_client.ts";

const FILES = {
  "src/util.ts": "export function helper(n: number): number {\n  return n + 1;\n}\n",
  "src/main.ts": `import { helper } from "./util";

export function run(): number {
  return helper(1) + helper(2);
}

export function start(): void {
  run();
}
`,
  "app/retry.py": `def retry_with_backoff(call, attempts=3):
    """Retry a call with exponential backoff."""
    return call()


def fetch():
    return retry_with_backoff(lambda: 1)
`,
};

const PROVENANCE =
  /^provenance: backend=\S+ confidence=\S+ fresh=(true|false) fallback=(yes|no) results=\d+/;

/** The lines before the provenance line: what the CLI prints for the same call. */
function hitLines(text: string): string {
  const lines = text.split("\n");
  assert.match(lines.at(-1)!, PROVENANCE, text);
  return lines.slice(0, -1).join("\n");
}

Deno.test("mcp (real process): tools/list has one tool per action, its schema generated from the descriptor", async () => {
  const root = fixtureRepository(FILES);
  const session = await startMcp(["--workspace", root]);
  try {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), Object.keys(METHODS));
    for (const tool of tools) {
      const descriptor = METHODS[tool.name];
      assert.equal(tool.description, descriptor.description);
      assert.equal(tool.title, descriptor.summary);
      const schema = tool.inputSchema as any;
      assert.equal(schema.type, "object");
      assert.equal(schema.additionalProperties, false);
      assert.deepEqual(
        Object.keys(schema.properties).sort(),
        Object.keys(descriptor.params).sort(),
      );
      const required = Object.entries(descriptor.params).filter(([, spec]) => spec.required)
        .map(([name]) => name);
      assert.deepEqual((schema.required ?? []).sort(), required.sort(), tool.name);
      if (descriptor.argument) assert.equal(Object.keys(schema.properties)[0], descriptor.argument);
      for (const [name, spec] of Object.entries(descriptor.params)) {
        const property = schema.properties[name];
        const where = `${tool.name}.${name}`;
        assert.equal(property.description, spec.description, where);
        if (spec.type === "string[]") {
          assert.equal(property.type, "array", where);
          assert.deepEqual(property.items, { type: "string" }, where);
          assert.equal(property.maxItems, LIMITS.paths, where);
        } else if (spec.type === "object[]") {
          assert.equal(property.type, "array", where);
          assert.equal(property.items.type, "object", where);
          assert.equal(property.items.additionalProperties, false, where);
          assert.deepEqual(
            Object.keys(property.items.properties),
            Object.keys(spec.fields!),
            where,
          );
          assert.equal(property.maxItems, spec.max, where);
        } else {
          assert.equal(property.type, spec.type, where);
        }
        assert.deepEqual(property.enum, spec.oneOf ? [...spec.oneOf] : undefined, where);
        assert.equal(property.minimum, spec.min, where);
        assert.equal(property.maximum, spec.type === "object[]" ? undefined : spec.max, where);
      }
      const writes = tool.name === "refresh" || tool.name === "rebuild";
      assert.equal(tool.annotations?.readOnlyHint, !writes, tool.name);
    }
    assert.deepEqual(
      (tools.find((tool) => tool.name === "search")!.inputSchema as any).properties.strategy.enum,
      ["hybrid", "lexical", "vector"],
    );
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): every action answers with the envelope and the CLI's lines plus provenance", async () => {
  const root = fixtureRepository(FILES);
  const cache = tempCache();
  const session = await startMcp(["--workspace", root], {
    env: mcpEnvironment({ SEXTANT_CACHE_DIR: cache }),
  });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await session.client.callTool({ name, arguments: args }) as any;
    assert.ok(!result.isError, `${name}: ${textOf(result)}`);
    assert.equal(result.structuredContent.action, name);
    for (const field of ["results", "provenance", "repositories", "truncated", "trace_id"]) {
      assert.ok(field in result.structuredContent, `${name} envelope has ${field}`);
    }
    return { text: textOf(result), envelope: result.structuredContent };
  };
  try {
    const search = await call("search", { query: "retry backoff" });
    assert.equal(search.envelope.results[0].path, "app/retry.py");
    assert.match(search.text, /^app\/retry\.py:1: def retry_with_backoff/);
    assert.match(search.text.split("\n").at(-1)!, /confidence=(reliable|candidate|weak)/);

    const grep = await call("grep", { pattern: "helper($X)", language: "typescript" });
    assert.equal(grep.envelope.results.length, 2);
    assert.deepEqual(
      grep.envelope.results.map((hit: any) => `${hit.path}:${hit.start_line}`),
      ["src/main.ts:4", "src/main.ts:4"],
    );

    const symbols = await call("symbols", { query: "helper" });
    assert.match(symbols.text, /^src\/util\.ts:1: function src\/util\.helper/);

    const definition = await call("definition", { symbol: "helper" });
    assert.equal(definition.envelope.results[0].path, "src/util.ts");
    assert.equal(definition.envelope.results[0].start_line, 1);

    const references = await call("references", { symbol: "helper" });
    assert.ok(
      references.envelope.results.some((hit: any) =>
        hit.path === "src/main.ts" && hit.start_line === 4
      ),
    );

    const callers = await call("callers", { symbol: "helper" });
    assert.deepEqual(callers.envelope.results.map((hit: any) => hit.symbol), ["src/main.run"]);
    assert.match(callers.text.split("\n").at(-1)!, /confidence=exact/);

    const callees = await call("callees", { symbol: "run" });
    assert.deepEqual(callees.envelope.results.map((hit: any) => hit.symbol), ["src/util.helper"]);

    const impact = await call("impact", { symbol: "helper" });
    const reached = impact.envelope.results.map((hit: any) => hit.symbol);
    assert.ok(reached.includes("src/main.run") && reached.includes("src/main.start"), reached);

    const neighborhood = await call("neighborhood", { symbol: "run", format: "mermaid" });
    assert.ok(neighborhood.envelope.results.length >= 2);
    assert.match(neighborhood.text, /graph|flowchart/);

    const status = await call("status");
    assert.equal(status.envelope.data.repositories[0].files, 3);
    assert.match(status.text, /state ready/);

    const refresh = await call("refresh");
    assert.equal(refresh.envelope.data.reports[0].changed, false);
    assert.match(refresh.text, /generation 1 \(unchanged\)/);

    const rebuild = await call("rebuild");
    assert.equal(rebuild.envelope.data.reports[0].plan.add, 3);

    // A tool call refreshes first (like the CLI): a new file is found without asking.
    Deno.writeTextFileSync(`${root}/src/late.ts`, "export function lateComer(): void {}\n");
    const late = await call("symbols", { query: "lateComer" });
    assert.equal(late.envelope.results.length, 1);
    const stale = await call("symbols", { query: "helper", refresh: false });
    assert.equal(stale.envelope.results.length, 1);

    // The same lines as the CLI for the same call, on the same cache.
    for (
      const [args, cli] of [
        [["callers", { symbol: "helper" }], ["callers", "helper"]],
        [["grep", { pattern: "helper($X)", language: "typescript" }], [
          "grep",
          "helper($X)",
          "--language",
          "typescript",
        ]],
        [["search", { query: "retry backoff" }], ["search", "retry backoff"]],
      ] as const
    ) {
      const mcp = await call(args[0], args[1]);
      const out = await runCli(["query", "--embedded", "--workspace", root, ...cli], {
        env: { SEXTANT_CACHE_DIR: cache },
      });
      assert.equal(out.code, 0, out.stderr);
      assert.equal(hitLines(mcp.text), out.stdout.trimEnd(), args[0]);
    }
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): bad params are tool errors with the CLI's message, and the server goes on", async () => {
  const root = fixtureRepository(FILES);
  const cache = tempCache();
  const session = await startMcp(["--workspace", root], {
    env: mcpEnvironment({ SEXTANT_CACHE_DIR: cache }),
  });
  try {
    const cases: [string, Record<string, unknown>, string[]][] = [
      ["grep", { pattern: "helper($X)" }, ["grep", "helper($X)"]],
      ["search", { query: "x", limit: 0 }, ["search", "x", "--limit", "0"]],
      ["symbols", { query: "helper", repo: "nowhere" }, ["symbols", "helper", "--repo", "nowhere"]],
      ["search", { query: "x", strategy: "psychic" }, ["search", "x", "--strategy", "psychic"]],
    ];
    for (const [name, args, cli] of cases) {
      const result = await session.client.callTool({ name, arguments: args }) as any;
      assert.equal(result.isError, true, name);
      const out = await runCli(["query", "--embedded", "--workspace", root, ...cli], {
        env: { SEXTANT_CACHE_DIR: cache },
      });
      assert.equal(out.code, 2);
      assert.equal(`sextant: ${textOf(result)}`, out.stderr.trim(), name);
      assert.equal(result.structuredContent.error.message, textOf(result));
      assert.equal(typeof result.structuredContent.error.code, "number");
    }
    const extra = await session.client.callTool({
      name: "status",
      arguments: { verbose: true },
    }) as any;
    assert.equal(extra.isError, true);
    assert.equal(textOf(extra), "'status' has no parameter 'verbose'");
    const ok = await session.client.callTool({ name: "symbols", arguments: { query: "run" } });
    assert.ok(!ok.isError);
  } finally {
    await session.close();
  }
});
