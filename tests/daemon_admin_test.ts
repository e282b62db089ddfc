// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
/**
 * Who may reload the workspace, what a reload does to the identities of open
 * connections, and what `status` tells an agent about the daemon's counters.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, startDaemon, tempDirectory } from "./_helpers.ts";

const TOKENS = {
  limited: "limited-token-qq1",
  rotated: "limited-token-rr2",
  ops: "ops-token-ss3",
  watcher: "watcher-token-tt4",
};

function sha(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A workspace of two repositories with three agents; `overrides` rewrites an agent's token. */
function writeConfig(
  workspace: string,
  repos: { alpha: string; bravo: string },
  options: { limitedToken?: string; withOps?: boolean } = {},
): void {
  const ops = options.withOps ?? true;
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${repos.alpha}
  - name: bravoHiddenRepo
    path: ${repos.bravo}
agents:
  limitedAgentQ:
    token_sha256: ${sha(options.limitedToken ?? TOKENS.limited)}
    repositories: [alpha]
${
      ops
        ? `  opsAgentZed:
    token_sha256: ${sha(TOKENS.ops)}
    repositories: [alpha]
    admin: true
`
        : ""
    }  watcherAgentW:
    token_sha256: ${sha(TOKENS.watcher)}
    repositories: "*"
`,
  );
}

function setup() {
  const repos = {
    alpha: fixtureRepository({
      "src/a.ts": "export function alphaOne(): number {\n  return 1;\n}\n",
    }),
    bravo: fixtureRepository({ "lib/b.py": "def bravo_two():\n    return 2\n" }),
  };
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  writeConfig(workspace, repos);
  return { workspace, repos };
}

async function failure(promise: Promise<unknown>): Promise<RpcFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcFailure, `${error}`);
    return error;
  }
  assert.fail("expected an error answer");
}

async function connectAs(socket: string, agent: string, token: string): Promise<DaemonClient> {
  const client = await DaemonClient.connect(socket);
  await client.request("initialize", { agent, token });
  return client;
}

Deno.test("daemon (real socket): workspace/reload exists only for the local user and admin agents; a failed reload tells an admin agent nothing about the config", async () => {
  const { workspace, repos } = setup();
  const daemon = await startDaemon({ workspace });
  const anonymous = await DaemonClient.connect(daemon.socket);
  const limited = await connectAs(daemon.socket, "limitedAgentQ", TOKENS.limited);
  const ops = await connectAs(daemon.socket, "opsAgentZed", TOKENS.ops);
  try {
    // To anyone not allowed, reload answers exactly like a method that does not exist.
    for (const client of [anonymous, limited]) {
      const reload = await failure(client.request("workspace/reload"));
      const unknown = await failure(client.request("workspace/reloaz"));
      assert.equal(reload.code, ErrorCode.MethodNotFound);
      assert.deepEqual(
        { code: reload.code, message: reload.message.replace("reload", "X"), data: reload.data },
        { code: unknown.code, message: unknown.message.replace("reloaz", "X"), data: unknown.data },
      );
    }
    // An admin agent reloads, and hears only of the repositories it sees.
    const reloaded = await ops.request("workspace/reload") as any;
    assert.deepEqual(reloaded.repositories, ["alpha"]);
    // A broken config: the admin agent learns that it failed, not where or why.
    Deno.writeTextFileSync(
      join(workspace, "sextant.yml"),
      `repositories: [oopsBrokenLine\nagents:\n  limitedAgentQ: {}\n`,
    );
    const broken = await failure(ops.request("workspace/reload"));
    assert.equal(broken.code, ErrorCode.InvalidParams);
    const told = JSON.stringify({ message: broken.message, data: broken.data });
    for (const secret of [workspace, "sextant.yml", "oopsBrokenLine", "limitedAgentQ", "bravo"]) {
      assert.ok(!told.includes(secret), `the answer tells '${secret}': ${told}`);
    }
    const trace = (broken.data as any)?.trace_id;
    assert.match(trace, /^[0-9a-f]{16}$/);
    assert.match(daemon.stderr(), new RegExp(`daemon\\.reload_failed trace_id=${trace}`));
    // The old registry stays in force.
    assert.equal((await limited.request("status") as any).data.repositories[0].name, "alpha");
    writeConfig(workspace, repos);
  } finally {
    anonymous.close();
    limited.close();
    ops.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): after a reload, a rotated or removed token stops working on the next request", async () => {
  const { workspace, repos } = setup();
  const daemon = await startDaemon({ workspace });
  const limited = await connectAs(daemon.socket, "limitedAgentQ", TOKENS.limited);
  const ops = await connectAs(daemon.socket, "opsAgentZed", TOKENS.ops);
  const watcher = await connectAs(daemon.socket, "watcherAgentW", TOKENS.watcher);
  try {
    assert.equal((await limited.request("status") as any).action, "status");
    // limitedAgentQ's token is rotated; the admin reloads.
    writeConfig(workspace, repos, { limitedToken: TOKENS.rotated });
    await ops.request("workspace/reload");
    const stale = await failure(limited.request("status"));
    assert.equal(stale.code, ErrorCode.Unauthorized);
    await failure(limited.request("symbols", { query: "alphaOne" }));
    // The old token no longer initializes; the new one does.
    assert.equal(
      (await failure(limited.request("initialize", {
        agent: "limitedAgentQ",
        token: TOKENS.limited,
      }))).code,
      ErrorCode.Unauthorized,
    );
    await limited.request("initialize", { agent: "limitedAgentQ", token: TOKENS.rotated });
    assert.equal((await limited.request("status") as any).action, "status");
    // An agent removed from the config (by SIGHUP this time) is refused on its next request.
    writeConfig(workspace, repos, { limitedToken: TOKENS.rotated, withOps: false });
    daemon.process.kill("SIGHUP");
    const deadline = Date.now() + 10_000;
    let code = 0;
    while (Date.now() < deadline) {
      code = await ops.request("status").then(() => 0, (error) => error.code);
      if (code !== 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(code, ErrorCode.Unauthorized);
    // Agents whose tokens did not change go on.
    assert.equal((await watcher.request("status") as any).action, "status");
    assert.equal((await limited.request("status") as any).action, "status");
  } finally {
    limited.close();
    ops.close();
    watcher.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): status counts only known methods, and an agent's status shows only its own requests", async () => {
  const { workspace } = setup();
  const daemon = await startDaemon({ workspace });
  const limited = await DaemonClient.connect(daemon.socket);
  const watcher = await connectAs(daemon.socket, "watcherAgentW", TOKENS.watcher);
  try {
    // Fifty at a time: under the in-flight cap, so each is answered MethodNotFound.
    const madeUp = async (prefix: string, count: number) => {
      for (let start = 0; start < count; start += 50) {
        await Promise.all(
          Array.from(
            { length: 50 },
            (_, i) => limited.request(`${prefix}/made-up-${start + i}`).catch(() => null),
          ),
        );
      }
    };
    await madeUp("before", 300);
    await limited.request("initialize", { agent: "limitedAgentQ", token: TOKENS.limited });
    await madeUp("after", 200);
    await failure(limited.request("workspace/reload"));
    for (let i = 0; i < 5; i++) await watcher.request("search", { query: `bravo two ${i}` });
    await limited.request("symbols", { query: "alphaOne" });

    const own = (await limited.request("status") as any).data.daemon;
    const known = new Set([...Object.keys(METHODS), "initialize", "unknown"]);
    for (const name of Object.keys(own.requests_by_method)) {
      assert.ok(known.has(name), `status names method '${name}'`);
    }
    // Its own requests since it said who it is: 200 made up + the reload + symbols + status.
    assert.equal(own.requests_by_method.unknown, 201);
    assert.equal(own.requests_by_method.search, undefined, "another agent's searches");
    assert.equal(own.requests, 203);
    assert.equal(own.errors.MethodNotFound, 201);
    assert.equal(own.connections, undefined);
    const text = JSON.stringify(own);
    assert.ok(!text.includes("watcherAgentW") && !text.includes("opsAgentZed"), text);
    assert.ok(text.length < 2000, `${text.length} bytes`);

    const theirs = (await watcher.request("status") as any).data.daemon;
    assert.equal(theirs.requests_by_method.search, 5);
    assert.equal(theirs.requests_by_method.unknown, undefined);
    assert.ok(!JSON.stringify(theirs).includes("limitedAgentQ"));
  } finally {
    limited.close();
    watcher.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): the local user (no agents section) reloads and is told why a config is broken", async () => {
  const root = fixtureRepository({ "src/a.ts": "export const a = 1;\n" });
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:\n  - name: only\n    path: ${root}\n`,
  );
  const daemon = await startDaemon({ workspace });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    assert.deepEqual((await client.request("workspace/reload") as any).repositories, ["only"]);
    Deno.writeTextFileSync(join(workspace, "sextant.yml"), "repositories: [oops");
    const broken = await failure(client.request("workspace/reload"));
    assert.equal(broken.code, ErrorCode.InvalidParams);
    assert.match(broken.message, /sextant\.yml/, "the local user is told which file");
    const status = (await client.request("status") as any).data.daemon;
    assert.equal(status.requests_by_method["workspace/reload"], 2);
    assert.ok(status.connections.open >= 1);
  } finally {
    client.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): refresh: true from an agent not granted refresh runs no refresh and says so; a granted agent's does", async () => {
  const root = fixtureRepository({
    "src/a.ts": "export function alphaOne(): number {\n  return 1;\n}\n",
  });
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${root}
agents:
  readerAgentR:
    token_sha256: ${sha(TOKENS.limited)}
    repositories: [alpha]
    actions: [search, symbols, status]
  refresherAgentF:
    token_sha256: ${sha(TOKENS.ops)}
    repositories: [alpha]
    actions: [search, refresh]
`,
  );
  const daemon = await startDaemon({ workspace });
  const reader = await connectAs(daemon.socket, "readerAgentR", TOKENS.limited);
  const refresher = await connectAs(daemon.socket, "refresherAgentF", TOKENS.ops);
  const refreshes = () =>
    daemon.stderr().split("\n").filter((l) => / refresh repo=/.test(l)).length;
  const refused = /refresh: true was not run: this agent is not granted 'refresh'/;
  try {
    const first = await refresher.request("search", { query: "alphaOne", refresh: true }) as any;
    assert.equal(first.results[0]?.path, "src/a.ts");
    assert.ok(!first.limitations.some((line: string) => refused.test(line)));
    const generation = first.repositories[0].generation;
    assert.equal(refreshes(), 1);
    // A new file on disk: only a refresh would index it.
    Deno.writeTextFileSync(
      join(root, "src/c.ts"),
      "export function charlieThree(): number {\n  return 3;\n}\n",
    );
    const asked = await reader.request("search", { query: "charlieThree", refresh: true }) as any;
    assert.ok(!asked.results.some((hit: any) => hit.path === "src/c.ts"), "no refresh ran");
    assert.equal(asked.repositories[0].generation, generation, "the last committed generation");
    assert.equal(asked.limitations.filter((line: string) => refused.test(line)).length, 1);
    const symbols = await reader.request("symbols", {
      query: "charlieThree",
      refresh: true,
    }) as any;
    assert.equal(symbols.results.length, 0);
    assert.ok(symbols.limitations.some((line: string) => refused.test(line)));
    assert.equal(refreshes(), 1, "the reader's refresh: true started no refresh");
    // The agent granted refresh does refresh; the reader then sees the new generation.
    const granted = await refresher.request("search", {
      query: "charlieThree",
      refresh: true,
    }) as any;
    assert.equal(granted.results[0]?.path, "src/c.ts");
    assert.ok(granted.repositories[0].generation > generation);
    assert.equal(refreshes(), 2);
    const after = await reader.request("search", { query: "charlieThree" }) as any;
    assert.equal(after.results[0]?.path, "src/c.ts");
    assert.ok(!after.limitations.some((line: string) => refused.test(line)));
  } finally {
    reader.close();
    refresher.close();
    await daemon.stop();
  }
});
