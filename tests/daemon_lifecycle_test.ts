// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient } from "../src/daemon/client.ts";
import {
  fixtureRepository,
  PROJECT_ROOT,
  runCli,
  socketDirectory,
  startDaemon,
  tempCache,
  tempDirectory,
} from "./_helpers.ts";

const FILES = { "src/a.ts": "export function alpha(): number {\n  return 1;\n}\n" };

async function runDaemonOnce(workspace: string, socket: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "-A",
      join(PROJECT_ROOT, "src/main.ts"),
      "daemon",
      "--socket",
      socket,
      "--workspace",
      workspace,
    ],
    env: { SEXTANT_CACHE_DIR: tempCache() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("daemon (real socket): socket 0600 in a 0700 directory; a second daemon is refused; SIGTERM cleans up", async () => {
  const root = fixtureRepository(FILES);
  const directory = join(socketDirectory(), "run");
  const socket = join(directory, "s.sock");
  const daemon = await startDaemon({ workspace: root, socket });
  let stopped = false;
  try {
    assert.equal(Deno.statSync(socket).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(directory).mode! & 0o777, 0o700);
    const second = await runDaemonOnce(root, socket);
    assert.equal(second.code, 2);
    assert.match(second.stderr, /already listening/);
    const client = await DaemonClient.connect(socket);
    assert.equal(
      (await client.request("status") as any).action,
      "status",
      "the first still serves",
    );
    client.close();
    const status = await daemon.stop();
    stopped = true;
    assert.equal(status.code, 0);
    assert.throws(() => Deno.lstatSync(socket), Deno.errors.NotFound, "socket removed");
    assert.match(daemon.stderr(), /daemon\.stop reason=SIGTERM/);
  } finally {
    if (!stopped) await daemon.stop();
  }
});

Deno.test("daemon (real socket): SIGTERM answers in-flight requests (result or RequestCancelled) before it closes", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++) files[`pkg/m${i}.py`] = `def f_${i}(x):\n    return x\n`.repeat(20);
  const daemon = await startDaemon({ workspace: fixtureRepository(files) });
  const client = await DaemonClient.connect(daemon.socket);
  let parsing!: () => void;
  const started = new Promise<void>((resolve) => (parsing = resolve));
  const refresh = client.request("refresh", {}, {
    onProgress: (p) => p.phase === "parse" && parsing(),
  })
    .then(() => "answered", (error) => error.code === -32800 ? "cancelled" : `${error.message}`);
  await started;
  const status = await daemon.stop();
  assert.ok(["answered", "cancelled"].includes(await refresh), await refresh);
  assert.equal(status.code, 0);
  assert.throws(() => Deno.lstatSync(daemon.socket), Deno.errors.NotFound);
  client.close();
});

Deno.test("daemon (real socket): a stale socket of a killed daemon is replaced; an open directory is refused", async () => {
  const root = fixtureRepository(FILES);
  const socket = join(socketDirectory(), "s.sock");
  const killed = await startDaemon({ workspace: root, socket });
  killed.process.kill("SIGKILL");
  await killed.process.status;
  assert.ok(Deno.lstatSync(socket).isSocket, "the dead daemon left its socket");
  const daemon = await startDaemon({ workspace: root, socket });
  try {
    const client = await DaemonClient.connect(socket);
    assert.equal((await client.request("status") as any).action, "status");
    client.close();
  } finally {
    await daemon.stop();
  }
  const open = socketDirectory();
  Deno.chmodSync(open, 0o755);
  const refused = await runDaemonOnce(root, join(open, "s.sock"));
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /open to other users/);
  const notSocket = join(socketDirectory(), "file");
  Deno.writeTextFileSync(notSocket, "keep me");
  const kept = await runDaemonOnce(root, notSocket);
  assert.equal(kept.code, 2);
  assert.equal(Deno.readTextFileSync(notSocket), "keep me");
});

Deno.test("daemon (real socket): SIGHUP and workspace/reload pick up sextant.yml without dropping connections", async () => {
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  const first = fixtureRepository(FILES);
  const second = fixtureRepository({ "lib/b.py": "def beta():\n    return 2\n" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:\n  - name: first\n    path: ${first}\n`,
  );
  const daemon = await startDaemon({ workspace });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const hello = await client.request("initialize", {}) as any;
    assert.deepEqual(hello.repositories.map((r: any) => r.name), ["first"]);
    Deno.writeTextFileSync(
      join(workspace, "sextant.yml"),
      `repositories:\n  - name: first\n    path: ${first}\n  - name: second\n    path: ${second}\n`,
    );
    daemon.process.kill("SIGHUP");
    const deadline = Date.now() + 10_000;
    let names: string[] = [];
    while (Date.now() < deadline) {
      names = ((await client.request("status") as any).data.repositories as any[]).map((r) =>
        r.name
      );
      if (names.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(names, ["first", "second"], "same connection sees the reloaded registry");
    Deno.writeTextFileSync(
      join(workspace, "sextant.yml"),
      `repositories:\n  - name: second\n    path: ${second}\n`,
    );
    const reloaded = await client.request("workspace/reload") as any;
    assert.deepEqual(reloaded.repositories, ["second"]);
    const symbols = await client.request("symbols", { query: "beta", refresh: true }) as any;
    assert.equal(symbols.results[0].repo, "second");
    Deno.writeTextFileSync(join(workspace, "sextant.yml"), "repositories: [oops");
    const broken: any = await client.request("workspace/reload").catch((error) => error);
    assert.equal(broken.code, -32602, "a broken config is refused");
    assert.equal((await client.request("status") as any).data.repositories[0].name, "second");
  } finally {
    client.close();
    await daemon.stop();
  }
});

Deno.test("CLI (real process): query answers the same through the daemon as embedded", async () => {
  const root = fixtureRepository(FILES);
  const cache = tempCache();
  const socket = join(socketDirectory(), "s.sock");
  const env = { SEXTANT_CACHE_DIR: cache, SEXTANT_SOCKET: socket };
  const embedded = await runCli(["query", "symbols", "alpha"], { cwd: root, env });
  assert.equal(embedded.code, 0, embedded.stderr);
  const daemon = await startDaemon({ workspace: root, cache, socket });
  try {
    const viaDaemon = await runCli(["query", "symbols", "alpha"], { cwd: root, env });
    assert.equal(viaDaemon.code, 0, viaDaemon.stderr);
    assert.equal(viaDaemon.stdout, embedded.stdout);
    assert.match(daemon.stderr(), /method=symbols/, "the daemon answered");
    const json = JSON.parse(
      (await runCli(["query", "--json", "status"], { cwd: root, env })).stdout,
    );
    assert.ok(json.data.daemon, "status through the daemon carries its counters");
    const other = fixtureRepository({ "x.ts": "export const alpha = 1;\n" });
    const elsewhere = await runCli(["query", "--json", "status"], { cwd: other, env });
    assert.equal(
      JSON.parse(elsewhere.stdout).data.daemon,
      undefined,
      "another workspace runs embedded",
    );
  } finally {
    await daemon.stop();
  }
});
