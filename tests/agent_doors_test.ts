/**
 * map, outline, context and verify through every front door: the CLI as a
 * real process (citations as a JSON argument or on stdin), a real daemon on
 * its socket (with a path-limited agent and a summary-mode agent), and MCP
 * through the SDK's client over stdio.
 */
// Answers are untyped JSON read back from the doors.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { PROJECT_ROOT, runCli, startDaemon, tempCache } from "./_helpers.ts";
import { mcpEnvironment, startMcp, textOf } from "./_mcp_client.ts";
import {
  agentRepository,
  agentWorkspace,
  BODY_MARKER,
  lineOf,
  SECRET_MARKER,
  VALUE_MARKER,
} from "./_agent_fixture.ts";

const TOKENS = {
  OWNER_TOKEN: "owner-agent-token",
  LIMITED_TOKEN: "limited-agent-token",
  SUMMARY_TOKEN: "summary-agent-token",
};
const PARSE = lineOf("pkg/core.py", "def parse_config");
const CITATIONS = [
  { path: "pkg/core.py", start_line: PARSE, end_line: PARSE + 3, symbol: "parse_config" },
  { path: "pkg/core.py", start_line: 2, end_line: 3, symbol: "parse_config" },
];

/** Runs the CLI with stdin piped from `input`. */
async function cliWithStdin(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      join(PROJECT_ROOT, "src/main.ts"),
      ...args,
    ],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("agent actions (real process): the CLI prints map, outline, context and verify", async () => {
  const root = agentRepository();
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const cli = (...args: string[]) =>
    runCli(["query", "--embedded", "--workspace", root, ...args], { env });

  const map = await cli("map", "retry with exponential backoff", "--no-uncommitted");
  assert.equal(map.code, 0, map.stderr);
  const mapLines = map.stdout.split("\n");
  assert.equal(mapLines[0], "pkg/retry.py");
  assert.match(mapLines[1], /^ {2}\d+: def retry_with_backoff\(call, attempts=3\)$/);
  assert.ok(!map.stdout.includes(BODY_MARKER));

  const onboarding = await cli("map", "--role", "onboarding", "--token-budget", "4000");
  assert.equal(onboarding.code, 0, onboarding.stderr);
  assert.match(onboarding.stdout, /^\[entry\] pkg\/\S+ — /m);
  assert.match(onboarding.stdout, /^\[utility\] pkg\/util\.py — helpers used by \d+ file\(s\)/m);

  const outline = await cli("outline", "pkg/core.py");
  assert.equal(outline.code, 0, outline.stderr);
  assert.deepEqual(outline.stdout.trimEnd().split("\n"), [
    "pkg/core.py  Core configuration handling.",
    "  5: class Config — A parsed configuration.",
    "    8: def __init__(self, values)",
    "    11: def get(self, key) — Return one value.",
    `  ${PARSE}: def parse_config(path) — Parse a configuration file into a Config.`,
  ]);
  const none = await cli("outline", "no/such/dir");
  assert.equal(none.code, 1);
  assert.match(none.stdout, /note: no indexed file or directory 'no\/such\/dir' in scope/);

  const context = await cli("context", "--symbols", "parse_config", "--json");
  assert.equal(context.code, 0, context.stderr);
  const pack = JSON.parse(context.stdout);
  assert.equal(pack.results[0].piece, "body");
  assert.equal(pack.results[0].symbol, "pkg.core.parse_config");
  const contextText = await cli("context", "--symbols", "parse_config");
  assert.match(
    contextText.stdout,
    new RegExp(`^pkg/core\\.py:${PARSE}-${PARSE + 3}: \\[body pkg\\.core\\.parse_config\\] — `),
  );

  // Citations as the positional JSON argument, and on stdin with '-'.
  const verify = await cli("verify", JSON.stringify(CITATIONS));
  assert.equal(verify.code, 1, "a citation that does not hold exits 1");
  assert.deepEqual(verify.stdout.trimEnd().split("\n"), [
    `[ok] pkg/core.py:${PARSE}-${PARSE + 3} parse_config — the citation holds`,
    `[symbol_not_in_range] pkg/core.py:2-3 parse_config — 'parse_config' is not defined over ` +
    `lines 2-3 of 'pkg/core.py'; now at pkg/core.py:${PARSE}`,
    "score 0.5 (1/2 hold)",
  ]);
  const stdin = await cliWithStdin(
    ["query", "--embedded", "--workspace", root, "--json", "verify", "-"],
    JSON.stringify(CITATIONS.slice(0, 1)),
    env,
  );
  assert.equal(stdin.code, 0, stdin.stderr);
  assert.equal(JSON.parse(stdin.stdout).data.score, 1);
  const bad = await cli("verify", "[{path: 1}]");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Cannot read the citations argument as JSON/);
  const help = await runCli(["query", "--help"], { env });
  assert.match(help.stdout, /verify <citations> +Checks citations/);
  assert.match(help.stdout, /--citations JSON\|-/);
});

Deno.test("agent actions (real socket): a daemon answers the four actions; agents see only what they may", async () => {
  const workspace = agentWorkspace();
  const daemon = await startDaemon({ workspace, env: TOKENS });
  const owner = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  const summary = await DaemonClient.connect(daemon.socket);
  try {
    await owner.request("initialize", { agent: "owner", token: TOKENS.OWNER_TOKEN });
    await owner.request("refresh", {});
    const map = await owner.request("map", { focus: "open the vault", uncommitted: false }) as any;
    assert.equal(map.action, "map");
    assert.equal(map.results[0].path, "pkg/secret/vault.py", "the owner sees the vault");
    const outline = await owner.request("outline", { path: "pkg", depth: 1 }) as any;
    assert.ok(outline.results.some((hit: any) => hit.path === "pkg/secret/"));
    const context = await owner.request("context", { symbols: ["open_vault"] }) as any;
    assert.ok(context.results[0].snippet.includes(SECRET_MARKER));
    const verify = await owner.request("verify", {
      citations: [{ repo: "demo", path: "pkg/secret/vault.py", symbol: "open_vault" }],
    }) as any;
    assert.equal(verify.results[0].verdict, "ok");

    // A path-limited agent: the vault is neither ranked, listed, packed nor verifiable.
    await limited.request("initialize", { agent: "limited", token: TOKENS.LIMITED_TOKEN });
    for (
      const [method, params] of [
        ["map", { focus: "open the vault", uncommitted: false, token_budget: 100_000 }],
        ["outline", { depth: 9 }],
        ["context", { query: "open the vault" }],
        ["context", { symbols: ["open_vault"] }],
      ] as const
    ) {
      const answer = await limited.request(method, params);
      const text = JSON.stringify(answer);
      assert.ok(!text.includes("secret/") && !text.includes(SECRET_MARKER), `${method}: ${text}`);
    }
    const hidden = await limited.request("verify", {
      citations: [
        { repo: "demo", path: "pkg/secret/vault.py", start_line: 1 },
        { repo: "demo", path: "pkg/secret/absent.py", start_line: 1 },
      ],
    }) as any;
    assert.deepEqual(hidden.results.map((hit: any) => hit.verdict), [
      "file_unknown",
      "file_unknown",
    ]);
    assert.equal(
      hidden.results[0].reason.replace("vault", "X"),
      hidden.results[1].reason.replace("absent", "X"),
    );

    // A summary-mode agent: map and outline only, and nothing but signatures and doc sentences.
    const hello = await summary.request("initialize", {
      agent: "pm",
      token: TOKENS.SUMMARY_TOKEN,
    }) as any;
    assert.deepEqual(hello.actions.sort(), ["map", "outline", "status"]);
    for (const method of ["context", "verify"]) {
      const refused: any = await summary.request(method, {
        symbols: ["parse_config"],
        citations: CITATIONS,
      }).catch((error) => error);
      assert.ok(refused instanceof RpcFailure, method);
      assert.equal(refused.code, ErrorCode.Unauthorized, method);
    }
    const summaryMap = await summary.request("map", {
      focus: "retry backoff",
      uncommitted: false,
      token_budget: 100_000,
    }) as any;
    const summaryOutline = await summary.request("outline", { depth: 9 }) as any;
    for (const answer of [summaryMap, summaryOutline]) {
      const text = JSON.stringify(answer);
      assert.ok(!text.includes(BODY_MARKER), `no body text: ${text}`);
      assert.ok(!text.includes(VALUE_MARKER), `no assigned values: ${text}`);
      assert.ok(text.includes("def retry_with_backoff(call, attempts=3)"), "signatures stay");
      assert.ok(answer.results.every((hit: any) => hit.snippet === ""));
    }
    assert.ok(JSON.stringify(summaryOutline).includes("Retry a call with exponential backoff."));
    assert.ok(JSON.stringify(summaryOutline).includes('"BACKOFF_NAME: str"'), "names stay");
  } finally {
    owner.close();
    limited.close();
    summary.close();
    await daemon.stop();
  }
});

Deno.test("agent actions (real process): MCP lists the four tools and calls each", async () => {
  const root = agentRepository();
  const session = await startMcp(["--workspace", root], {
    env: mcpEnvironment({ SEXTANT_CACHE_DIR: tempCache() }),
  });
  try {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["map", "outline", "context", "verify"]) {
      assert.ok(byName.has(name), name);
      assert.ok(byName.get(name)!.description!.length > 100, `${name} is described for a model`);
    }
    const citations = (byName.get("verify")!.inputSchema as any).properties.citations;
    assert.equal(citations.type, "array");
    assert.deepEqual(citations.items.required, ["path"]);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await session.client.callTool({ name, arguments: args }) as any;
      assert.ok(!result.isError, `${name}: ${textOf(result)}`);
      return { text: textOf(result), envelope: result.structuredContent };
    };
    const map = await call("map", { focus: "split_pairs", uncommitted: false });
    assert.equal(map.envelope.results[0].path, "pkg/util.py");
    assert.match(map.text, /^pkg\/util\.py\n {2}\d+: def read_text\(path\)/);
    assert.match(
      map.text.split("\n").at(-1)!,
      /^provenance: backend=pagerank confidence=approximate/,
    );
    const outline = await call("outline", { path: "pkg/util.py" });
    assert.match(outline.text, /^pkg\/util\.py {2}Small helpers shared by every module\.\n/);
    const context = await call("context", { query: "retry a call with exponential backoff" });
    assert.equal(context.envelope.results[0].symbol, "pkg.retry.retry_with_backoff");
    assert.ok(context.text.includes(BODY_MARKER));
    const verify = await call("verify", { citations: CITATIONS });
    assert.deepEqual(
      verify.envelope.results.map((hit: any) => hit.verdict),
      ["ok", "symbol_not_in_range"],
    );
    assert.match(verify.text, /^score 0\.5 \(1\/2 hold\)$/m);
    const bad = await session.client.callTool({
      name: "verify",
      arguments: { citations: [{ path: "pkg/core.py", lines: 3 }] },
    }) as any;
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /citations\[0\]' has no field 'lines'/);
  } finally {
    await session.close();
  }
});

Deno.test("agent actions (real process): an MCP summary-mode agent gets map and outline only", async () => {
  const workspace = agentWorkspace();
  const cache = tempCache();
  // Indexed by the local user: a refresh is not the summary agent's to run.
  const indexed = await runCli(["query", "--embedded", "--workspace", workspace, "refresh"], {
    env: { SEXTANT_CACHE_DIR: cache },
  });
  assert.equal(indexed.code, 0, indexed.stderr);
  const session = await startMcp(
    ["--workspace", workspace, "--agent", "pm", "--token", TOKENS.SUMMARY_TOKEN],
    { env: mcpEnvironment({ SEXTANT_CACHE_DIR: cache, ...TOKENS }) },
  );
  try {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["map", "outline", "status"]);
    const map = await session.client.callTool({
      name: "map",
      arguments: { token_budget: 100_000, uncommitted: false },
    }) as any;
    assert.ok(!map.isError, textOf(map));
    assert.ok(!textOf(map).includes(BODY_MARKER));
    assert.ok(textOf(map).includes("def retry_with_backoff(call, attempts=3)"));
    const context = await session.client.callTool({
      name: "context",
      arguments: { symbols: ["parse_config"] },
    }) as any;
    assert.equal(context.isError, true);
    assert.match(textOf(context), /not allowed for this agent/);
  } finally {
    await session.close();
  }
});
