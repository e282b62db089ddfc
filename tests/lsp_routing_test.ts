/**
 * Language servers routed into the actions, through the CLI and the socket (real processes):
 * routed answers, the first request's fallback while the server starts, a server that never
 * becomes ready, a stopped server (timeout, and other requests unaffected), a server killed
 * mid-request (fallback, then recovery), an edited file (fresh: false), and an agent that may
 * not see a path the server names.
 */
// Answers are untyped JSON read back from the socket and the CLI.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient } from "../src/daemon/client.ts";
import { runCli, startDaemon, tempCache, tempDirectory } from "./_helpers.ts";
import { mcpEnvironment, startMcp } from "./_mcp_client.ts";
import {
  eventually,
  processAlive,
  PYTHON_FILES,
  repository,
  TYPESCRIPT_FILES,
  typescriptServer,
  writeExecutable,
} from "./lsp_fixture.ts";

const FILES = {
  ...PYTHON_FILES,
  "pkg/extra.py": "from pkg.util import helper\n\n\ndef extra():\n    return helper(5)\n",
};
/** `helper(3)` in pkg/main.py. */
const USE = { path: "pkg/main.py", line: 5, column: 13 };

/** A workspace directory whose sextant.yml names one repository and the given `lsp:` section. */
function lspWorkspace(root: string, lsp: string, agents = ""): string {
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:\n  - name: app\n    path: ${root}\nlsp:\n${lsp}${agents}`,
  );
  return workspace;
}

const PYRIGHT = "  python:\n    command: [pyright-langserver, --stdio]\n";

function sites(envelope: any): string[] {
  return envelope.results.map((hit: any) => `${hit.path}:${hit.start_line}:${hit.start_column}`)
    .sort();
}

async function cli(workspace: string, cache: string, ...args: string[]): Promise<any> {
  const out = await runCli(["query", ...args, "--workspace", workspace, "--json"], {
    env: { SEXTANT_CACHE_DIR: cache },
  });
  assert.ok(out.code === 0 || out.code === 1, out.stderr + out.stdout);
  return JSON.parse(out.stdout);
}

Deno.test("CLI (real process): navigation and symbols answered by pyright, status lists the server", async () => {
  const root = repository(FILES);
  const workspace = lspWorkspace(root, PYRIGHT);
  const cache = tempCache();
  await cli(workspace, cache, "refresh");

  const definition = await cli(
    workspace,
    cache,
    "definition",
    "--path",
    USE.path,
    "--line",
    `${USE.line}`,
    "--column",
    `${USE.column}`,
  );
  assert.equal(definition.provenance.backend, "lsp:python");
  assert.equal(definition.provenance.confidence, "exact");
  assert.equal(definition.provenance.fallback_used, false);
  assert.equal(definition.provenance.fresh, true);
  assert.deepEqual(sites(definition), ["pkg/util.py:1:5"]);
  assert.equal(definition.results[0].snippet.split("\n")[0], "def helper(x):");
  assert.equal(definition.results[0].symbol, "pkg.util.helper");

  // By name: the structural subject's definition is where the server is asked.
  const references = await cli(workspace, cache, "references", "helper");
  assert.equal(references.provenance.backend, "lsp:python");
  assert.deepEqual(sites(references), [
    "pkg/extra.py:1:22",
    "pkg/extra.py:5:12",
    "pkg/main.py:12:12",
    "pkg/main.py:1:22",
    "pkg/main.py:5:13",
  ]);
  assert.equal(references.data.lsp.structural_results > 0, true);

  const callers = await cli(workspace, cache, "callers", "helper", "--limit", "2");
  assert.equal(callers.provenance.backend, "lsp:python");
  assert.equal(callers.results.length, 2);
  assert.equal(callers.truncated, true);
  const rest = await cli(workspace, cache, "callers", "helper", "--cursor", callers.next_cursor);
  assert.equal(rest.provenance.backend, "lsp:python");
  assert.deepEqual(
    [...callers.results, ...rest.results].map((hit: any) => `${hit.symbol}@${hit.path}`).sort(),
    ["extra@pkg/extra.py", "other@pkg/main.py", "run@pkg/main.py"],
  );

  const symbols = await cli(workspace, cache, "symbols", "Greeter", "--language", "python");
  assert.equal(symbols.provenance.backend, "lsp:python");
  assert.deepEqual(
    symbols.results.map((hit: any) => `${hit.symbol}:${hit.kind}:${hit.path}:${hit.start_line}`),
    ["Greeter:class:pkg/util.py:5"],
  );

  const status = await cli(workspace, cache, "status");
  const servers = status.data.repositories[0].lsp;
  assert.equal(servers.length, 1);
  assert.equal(servers[0].server, "python");
  assert.equal(servers[0].state, "unavailable", "a one-shot status starts no server");
  assert.equal(status.data.repositories[0].backends.lsp, "python unavailable");
});

Deno.test("CLI (real process): a server that never becomes ready times out into the structural answer", async () => {
  const root = repository(FILES);
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  // Reads stdin forever and never answers initialize.
  const silent = writeExecutable(
    bin,
    "silent-server",
    "#!/bin/sh\nexec 3>&1\nexec cat > /dev/null\n",
  );
  const workspace = lspWorkspace(
    root,
    `  python:\n    command: [${silent}]\n    request_timeout_ms: 800\n`,
  );
  const cache = tempCache();
  await cli(workspace, cache, "refresh");
  const started = performance.now();
  const answer = await cli(workspace, cache, "definition", "helper");
  assert.equal(answer.provenance.backend, "relations");
  assert.equal(answer.provenance.fallback_used, true);
  assert.match(
    answer.provenance.fallback_reason,
    /^lsp:python not_ready: the server is starting after waiting 800 ms/,
  );
  assert.deepEqual(answer.results.map((hit: any) => `${hit.path}:${hit.start_line}`), [
    "pkg/util.py:1",
  ]);
  assert.ok(performance.now() - started < 20_000);

  const refused = lspWorkspace(root, "  python:\n    command: [no-such-language-server-xyz]\n");
  const status = await cli(refused, cache, "status");
  const server = status.data.repositories[0].lsp[0];
  assert.equal(server.state, "failed");
  assert.equal(server.refused, true);
  assert.match(
    server.last_error,
    /^refused: lsp\.python\.command\[0\]: 'no-such-language-server-xyz'/,
  );
  const fallback = await cli(refused, cache, "references", "helper");
  assert.match(fallback.provenance.fallback_reason, /^lsp:python refused: /);
  assert.ok(fallback.results.length > 0);

  const bad = await runCli(
    ["query", "status", "--workspace", lspWorkspace(root, "  python: {}\n")],
    {
      env: { SEXTANT_CACHE_DIR: cache },
    },
  );
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /lsp\.python\.command is not a list of strings/);
});

async function waitForServer(client: DaemonClient, state: string): Promise<any> {
  let server: any = null;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const status: any = await client.request("status", {});
    server = status.data.repositories[0].lsp?.[0];
    if (server?.state === state) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not become ${state}: ${JSON.stringify(server)}`);
}

Deno.test("daemon (real socket): routed after the server is ready; a stopped server times out without holding others up; a killed one falls back and recovers; edits are fresh: false", async (t) => {
  const root = repository(FILES);
  // Long enough for a first analysis on a loaded machine; a stopped server takes this long.
  const workspace = lspWorkspace(root, `${PYRIGHT}    request_timeout_ms: 10000\n`);
  const daemon = await startDaemon({ workspace });
  const client = await DaemonClient.connect(daemon.socket);
  const other = await DaemonClient.connect(daemon.socket);
  let pid = 0;
  try {
    await client.request("initialize", {});
    await other.request("initialize", {});
    await client.request("refresh", {});

    await t.step("the first request falls back while the server starts", async () => {
      const first: any = await client.request("definition", { ...USE });
      assert.equal(first.provenance.backend, "relations");
      assert.equal(first.provenance.fallback_used, true);
      assert.match(first.provenance.fallback_reason, /^lsp:python not_ready: /);
      assert.deepEqual(first.results.map((hit: any) => hit.path), ["pkg/util.py"]);
    });

    await t.step("once ready, definition / references / callees are the server's", async () => {
      const server = await waitForServer(client, "ready");
      pid = server.pid;
      assert.ok(server.ready_ms !== null);
      const definition: any = await client.request("definition", { ...USE });
      assert.equal(definition.provenance.backend, "lsp:python");
      assert.equal(definition.provenance.confidence, "exact");
      assert.deepEqual(sites(definition), ["pkg/util.py:1:5"]);
      const references: any = await client.request("references", { ...USE });
      assert.equal(references.provenance.backend, "lsp:python");
      assert.equal(references.results.length, 5);
      const callees: any = await client.request("callees", { symbol: "run" });
      assert.equal(callees.provenance.backend, "lsp:python");
      assert.deepEqual(callees.results.map((hit: any) => hit.symbol).sort(), [
        "Greeter",
        "greet",
        "helper",
      ]);
      assert.ok(callees.limitations.some((line: string) => /outside the repository/.test(line)));
      const status: any = await client.request("status", {});
      const shown = status.data.repositories[0].lsp[0];
      assert.equal(shown.answered >= 3, true);
      assert.ok(shown.p50_request_ms !== null);
    });

    await t.step("an edited file answers on its committed lines, fresh: false", async () => {
      const path = join(root, "pkg/util.py");
      const committed = Deno.readTextFileSync(path);
      Deno.writeTextFileSync(path, `import os\n\n\n${committed}`);
      try {
        const answer: any = await client.request("definition", { ...USE });
        assert.equal(answer.provenance.backend, "lsp:python");
        assert.equal(answer.provenance.fresh, false);
        assert.deepEqual(sites(answer), ["pkg/util.py:1:5"]);
        assert.equal(answer.results[0].fresh, false);
        assert.equal(answer.results[0].snippet.split("\n")[0], "def helper(x):");
      } finally {
        Deno.writeTextFileSync(path, committed);
      }
    });

    await t.step(
      "a stopped server times out into the structural answer; others are answered meanwhile",
      async () => {
        const before = (await waitForServer(client, "ready")).timeouts;
        Deno.kill(pid, "SIGSTOP");
        try {
          let settled = 0;
          const pending = (client.request("references", { ...USE }) as Promise<any>).then(
            (answer) => ((settled = performance.now()), answer),
          );
          // Another connection's request is answered while the server hangs.
          const search: any = await other.request("search", { query: "greet" });
          const searched = performance.now();
          assert.ok(search.results.length > 0);
          const answer = await pending;
          assert.ok(searched < settled, "search waited for the stopped server");
          assert.equal(answer.provenance.backend, "relations");
          assert.match(answer.provenance.fallback_reason, /^lsp:python timeout: /);
          assert.ok(answer.results.length > 0);
          const server = await waitForServer(client, "degraded");
          assert.equal(server.timeouts, before + 1);
        } finally {
          Deno.kill(pid, "SIGCONT");
        }
      },
    );

    await t.step(
      "a server killed mid-request falls back, restarts and is routed again",
      async () => {
        Deno.kill(pid, "SIGSTOP");
        const pending = client.request("callers", { symbol: "helper" }) as Promise<any>;
        await new Promise((resolve) => setTimeout(resolve, 300));
        Deno.kill(pid, "SIGKILL");
        const answer = await pending;
        assert.equal(answer.provenance.backend, "relations");
        assert.match(answer.provenance.fallback_reason, /^lsp:python crashed: /);
        assert.ok(answer.results.length > 0);
        await eventually("the killed server to be gone", () => !processAlive(pid), 5_000);
        const restarted = await waitForServer(client, "ready");
        assert.notEqual(restarted.pid, pid);
        assert.equal(restarted.crashes, 1);
        assert.equal(restarted.restarts, 1);
        const again: any = await client.request("callers", { symbol: "helper" });
        assert.equal(again.provenance.backend, "lsp:python");
        assert.equal(again.results.length, 3);
        pid = restarted.pid;
      },
    );

    await t.step(
      "a reload replaces the servers: the old one stops, the next starts afresh",
      async () => {
        await client.request("workspace/reload", {});
        await eventually("the old server to stop", () => !processAlive(pid), 10_000);
        const status: any = await client.request("status", {});
        assert.equal(status.data.repositories[0].lsp[0].state, "unavailable");
        const first: any = await client.request("definition", { ...USE });
        assert.match(first.provenance.fallback_reason, /^lsp:python not_ready: /);
        pid = (await waitForServer(client, "ready")).pid;
        const routed: any = await client.request("definition", { ...USE });
        assert.equal(routed.provenance.backend, "lsp:python");
      },
    );
  } finally {
    client.close();
    other.close();
    await daemon.stop();
  }
  await eventually("the daemon's server to stop with it", () => !processAlive(pid), 10_000);
});

Deno.test("MCP (real process): the definition tool is answered by the server in an embedded MCP process", async () => {
  const root = repository(FILES);
  const workspace = lspWorkspace(root, PYRIGHT);
  const session = await startMcp(["--workspace", workspace, "--embedded"], {
    env: mcpEnvironment({ PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" }),
  });
  try {
    await session.client.callTool({ name: "refresh", arguments: {} });
    const answer = await session.client.callTool({
      name: "definition",
      arguments: { ...USE },
    }) as any;
    const envelope = answer.structuredContent;
    assert.equal(envelope.provenance.backend, "lsp:python", JSON.stringify(envelope.provenance));
    assert.deepEqual(sites(envelope), ["pkg/util.py:1:5"]);
    const status = await session.client.callTool({ name: "status", arguments: {} }) as any;
    assert.equal(status.structuredContent.data.repositories[0].lsp[0].state, "ready");
  } finally {
    await session.close();
  }
});

Deno.test("daemon (real socket): a path the agent may not see is dropped from the server's answers, uncounted", async () => {
  const root = repository(FILES);
  const workspace = lspWorkspace(
    root,
    PYRIGHT,
    `agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [app]
    paths: { app: ["pkg/main.py", "pkg/util.py", "pkg/__init__.py"] }
  admin:
    token_env: ADMIN_TOKEN
    repositories: "*"
`,
  );
  const daemon = await startDaemon({
    workspace,
    env: { LIMITED_TOKEN: "limited-1", ADMIN_TOKEN: "admin-2" },
  });
  const admin = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  try {
    await admin.request("initialize", { agent: "admin", token: "admin-2" });
    await limited.request("initialize", { agent: "limited", token: "limited-1" });
    await admin.request("refresh", {});
    await admin.request("definition", { ...USE });
    await waitForServer(admin, "ready");

    const full: any = await admin.request("references", { ...USE });
    assert.equal(full.provenance.backend, "lsp:python");
    assert.ok(full.results.some((hit: any) => hit.path === "pkg/extra.py"));
    const seen: any = await limited.request("references", { ...USE });
    assert.equal(seen.provenance.backend, "lsp:python");
    assert.deepEqual(
      sites(seen),
      sites(full).filter((site) => !site.startsWith("pkg/extra.py")),
    );
    assert.deepEqual(seen.limitations, full.limitations);
    assert.ok(!JSON.stringify(seen).includes("extra.py"));

    // Call hierarchy: extra() is a caller in a hidden file, at any depth of the hit.
    const callers: any = await limited.request("callers", { symbol: "helper" });
    assert.equal(callers.provenance.backend, "lsp:python");
    assert.deepEqual(callers.results.map((hit: any) => hit.symbol).sort(), ["other", "run"]);
    assert.ok(!JSON.stringify(callers).includes("extra"));

    // The restricted agent sees each server's state only.
    const status: any = await limited.request("status", {});
    assert.deepEqual(Object.keys(status.data.repositories[0].lsp[0]).sort(), [
      "languages",
      "repo",
      "server",
      "state",
    ]);
  } finally {
    admin.close();
    limited.close();
    await daemon.stop();
  }
});

Deno.test("CLI (real process): a TypeScript use is answered by typescript-language-server", async () => {
  const root = repository(TYPESCRIPT_FILES);
  const server = typescriptServer();
  const workspace = lspWorkspace(root, `  typescript: ${JSON.stringify(server)}\n`);
  const cache = tempCache();
  await cli(workspace, cache, "refresh");
  // `helper(3)` in src/main.ts.
  const answer = await cli(
    workspace,
    cache,
    "definition",
    "--path",
    "src/main.ts",
    "--line",
    "4",
    "--column",
    "17",
  );
  assert.equal(answer.provenance.backend, "lsp:typescript", JSON.stringify(answer.provenance));
  assert.deepEqual(sites(answer), ["src/util.ts:1:17"]);
  assert.equal(answer.results[0].language, "typescript");
});
