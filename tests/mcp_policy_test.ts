// Tool results are untyped JSON read back from the server.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { SUMMARY_ACTIONS } from "../src/daemon/policy.ts";
import { METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, runCli, tempDirectory } from "./_helpers.ts";
import { mcpCommandLine, mcpEnvironment, startMcp, textOf } from "./_mcp_client.ts";

const ALPHA = {
  "src/visible.ts": "export function alphaWidget(): number {\n  return 1;\n}\n",
  "secret/hidden.ts": "export function alphaSecret(): number {\n  return 2;\n}\n",
};
const BRAVO = {
  "lib/bravo.ts": "export function bravoOnlyWidget(): number {\n  return 3;\n}\n",
};
const TOKENS = { limited: "limited-token-1", scoped: "scoped-token-2", pm: "pm-token-3" };
const LIMITED_ACTIONS = ["search", "symbols", "definition", "references", "status"];

function policyWorkspace(): string {
  const alpha = fixtureRepository(ALPHA);
  const bravo = fixtureRepository(BRAVO);
  const workspace = tempDirectory({ prefix: "sextant-mcp-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${alpha}
  - name: bravo
    path: ${bravo}
agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [alpha]
    actions: [${LIMITED_ACTIONS.join(", ")}]
  scoped:
    token_env: SCOPED_TOKEN
    repositories: [alpha]
    paths: { alpha: ["src/**"] }
  pm:
    token_env: PM_TOKEN
    repositories: "*"
    mode: summary
`,
  );
  return workspace;
}

function agentEnvironment(agent: keyof typeof TOKENS, token = TOKENS[agent]) {
  return mcpEnvironment({
    LIMITED_TOKEN: TOKENS.limited,
    SCOPED_TOKEN: TOKENS.scoped,
    PM_TOKEN: TOKENS.pm,
    SEXTANT_AGENT: agent,
    SEXTANT_TOKEN: token,
  });
}

/** An answer without what differs between two identical requests. */
function comparable(value: unknown, replace: [string, string]): string {
  return JSON.stringify(value, (key, item) => (key === "trace_id" ? undefined : item))
    .replaceAll(replace[0], replace[1]);
}

Deno.test("mcp (real process): a limited agent lists only its actions; a hidden repository answers like a missing one", async () => {
  const workspace = policyWorkspace();
  const env = agentEnvironment("limited");
  // The local user indexes the workspace: this agent may not refresh, so its tools' default
  // refresh: true runs none and it reads the last committed generation.
  const indexed = await runCli(["query", "refresh", "--workspace", workspace], {
    env: { SEXTANT_CACHE_DIR: env.SEXTANT_CACHE_DIR },
  });
  assert.equal(indexed.code, 0, indexed.stderr);
  const session = await startMcp(["--workspace", workspace], { env });
  const call = (name: string, args: Record<string, unknown>) =>
    session.client.callTool({ name, arguments: args }) as Promise<any>;
  try {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), LIMITED_ACTIONS);

    const denied = await call("grep", { pattern: "f($X)", language: "typescript" });
    assert.equal(denied.isError, true);
    assert.equal(textOf(denied), "Action 'grep' is not allowed for this agent");

    const hidden = await call("symbols", { query: "widget", repo: "bravo" });
    const missing = await call("symbols", { query: "widget", repo: "charlie" });
    assert.equal(hidden.isError, true);
    assert.equal(textOf(hidden), "Repository 'bravo' is not in the workspace");
    assert.equal(comparable(hidden, ["bravo", "X"]), comparable(missing, ["charlie", "X"]));

    const bravoName = await call("symbols", { query: "bravoOnlyWidget" });
    const noName = await call("symbols", { query: "zzzOnlyWidget" });
    assert.equal(bravoName.structuredContent.results.length, 0);
    assert.equal(
      comparable(bravoName, ["bravoOnlyWidget", "X"]),
      comparable(noName, ["zzzOnlyWidget", "X"]),
    );

    const alphaName = await call("symbols", { query: "alphaWidget" });
    assert.equal(alphaName.structuredContent.results[0].path, "src/visible.ts");
    // One visible repository: paths are printed without a repository prefix.
    assert.match(textOf(alphaName), /^src\/visible\.ts:1: /);

    const status = await call("status", {});
    assert.deepEqual(status.structuredContent.data.repositories.map((r: any) => r.name), ["alpha"]);
    assert.ok(!JSON.stringify(status).includes("bravo"));
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): a path outside an agent's globs answers like a path that does not exist", async () => {
  const workspace = policyWorkspace();
  const session = await startMcp(["--workspace", workspace], { env: agentEnvironment("scoped") });
  const call = (name: string, args: Record<string, unknown>) =>
    session.client.callTool({ name, arguments: args }) as Promise<any>;
  try {
    const hidden = await call("definition", { path: "secret/hidden.ts", line: 1, column: 17 });
    const missing = await call("definition", { path: "secret/absent.ts", line: 1, column: 17 });
    assert.equal(
      comparable(hidden, ["secret/hidden.ts", "X"]),
      comparable(missing, ["secret/absent.ts", "X"]),
    );
    const secret = await call("symbols", { query: "alphaSecret" });
    assert.equal(secret.structuredContent.results.length, 0);
    const visible = await call("definition", { path: "src/visible.ts", line: 1, column: 17 });
    assert.equal(visible.structuredContent.results[0]?.symbol, "src/visible.alphaWidget");
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): a summary agent gets only the summary actions; no agent is the local user", async () => {
  const workspace = policyWorkspace();
  const pm = await startMcp(["--workspace", workspace], { env: agentEnvironment("pm") });
  try {
    const { tools } = await pm.client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      Object.keys(METHODS).filter((action) => SUMMARY_ACTIONS.has(action)),
    );
  } finally {
    await pm.close();
  }
  // Like the CLI: without an agent, the local user who owns the files has full access.
  const local = await startMcp(["--workspace", workspace]);
  try {
    const { tools } = await local.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), Object.keys(METHODS));
  } finally {
    await local.close();
  }
});

Deno.test("mcp (real process): a wrong token or an unknown agent fails at startup with the socket's message", async () => {
  const workspace = policyWorkspace();
  for (
    const [env, args] of [
      [agentEnvironment("limited", "wrong-token"), []],
      [agentEnvironment("limited"), ["--agent", "nobody"]],
      [agentEnvironment("limited"), ["--token", TOKENS.scoped]],
    ] as const
  ) {
    const { command, args: commandArgs } = mcpCommandLine(["--workspace", workspace, ...args]);
    const out = await new Deno.Command(command, {
      args: commandArgs,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    assert.equal(new TextDecoder().decode(out.stdout), "", "nothing on the protocol stream");
    assert.equal(
      new TextDecoder().decode(out.stderr).trim(),
      "sextant: Unknown agent or wrong token",
    );
  }
});
