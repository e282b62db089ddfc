/**
 * `sextant.yml` is checked whole when it loads (real process and real
 * socket): unknown keys, unknown repository names, a bad agents or lsp
 * section, broken YAML — each one `InvalidParams` (-32602) naming the file,
 * the line and the key, from the CLI and from the daemon alike.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient } from "../src/daemon/client.ts";
import { git, runCli, startDaemon, tempCache, tempDirectory } from "./_helpers.ts";

const assert = (condition: unknown, message?: string) => nodeAssert.ok(condition, message);
const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

function workspaceRoot(): string {
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-config-" }));
  for (const name of ["a", "b"]) {
    Deno.mkdirSync(join(root, name));
    Deno.writeTextFileSync(join(root, name, "x.py"), "def x():\n    return 1\n");
    git(join(root, name), "init", "-q");
  }
  return root;
}

const GOOD = "repositories:\n  - name: a\n    path: a\n  - name: b\n    path: b\n";
const HEX = "a".repeat(64);

/** Each broken file, the line its mistake is on, and what the message must name. */
const BROKEN: { name: string; text: string; line: number; names: RegExp }[] = [
  {
    name: "unknown top-level key",
    text: `${GOOD}repositoriez:\n  - name: c\n`,
    line: 6,
    names: /key 'repositoriez'/,
  },
  {
    name: "unknown key under workspace",
    text: `workspace:\n  cahce_dir: /tmp/x\n${GOOD}`,
    line: 2,
    names: /key 'cahce_dir' under 'workspace'/,
  },
  {
    name: "unknown repository in project_siblings",
    text: `${GOOD}project_siblings:\n  - [a, bee]\n`,
    line: 7,
    names: /project_siblings names unknown repository 'bee'/,
  },
  {
    name: "unknown repository under an agent",
    text: `${GOOD}agents:\n  bot:\n    token_sha256: ${HEX}\n    repositories: [a, zed]\n`,
    line: 9,
    names: /agent 'bot' names unknown repository 'zed'/,
  },
  {
    name: "unknown repository in an agent's paths",
    text: `${GOOD}agents:\n  bot:\n    token_env: BOT_TOKEN\n    paths:\n      nope: ["src/**"]\n`,
    line: 10,
    names: /agent 'bot' key 'paths' names unknown repository 'nope'/,
  },
  {
    name: "a bad agents section (found without that agent connecting)",
    text: `${GOOD}agents:\n  bot:\n    token_env: BOT_TOKEN\n    max_results: -1\n`,
    line: 9,
    names: /agent 'bot' key 'max_results'/,
  },
  {
    name: "a bad lsp section",
    text: `${GOOD}lsp:\n  python:\n    command: pyright\n`,
    line: 8,
    names: /lsp\.python\.command is not a list of strings/,
  },
  { name: "broken YAML", text: `${GOOD}  - name: [c\n`, line: 7, names: /Flow sequence/ },
];

Deno.test("a broken sextant.yml is one InvalidParams with its line and key, from the CLI (real process)", async (t) => {
  const root = workspaceRoot();
  for (const broken of BROKEN) {
    await t.step(broken.name, async () => {
      const config = join(root, "sextant.yml");
      Deno.writeTextFileSync(config, broken.text);
      for (const embedded of [true, false]) {
        const out = await runCli([
          "query",
          ...(embedded ? ["--embedded"] : []),
          "--json",
          "--workspace",
          root,
          "--cache-dir",
          tempCache(),
          "status",
        ]);
        const error = (JSON.parse(out.stdout) as { error?: { code: number; message: string } })
          .error;
        assertEquals(error?.code, -32602, out.stdout);
        assert(
          error!.message.startsWith(`Cannot parse workspace config ${config}:${broken.line}: `),
          error!.message,
        );
        assert(broken.names.test(error!.message), error!.message);
        assertEquals(out.code, 2);
      }
    });
  }
  await t.step("a good file still loads", async () => {
    Deno.writeTextFileSync(join(root, "sextant.yml"), `${GOOD}project_siblings:\n  - [a, b]\n`);
    const out = await runCli([
      "query",
      "--embedded",
      "--json",
      "--workspace",
      root,
      "--cache-dir",
      tempCache(),
      "status",
    ]);
    assertEquals(out.code, 0, out.stdout);
  });
});

Deno.test("the daemon refuses the same files with the same code and line (real socket)", async () => {
  const root = workspaceRoot();
  const config = join(root, "sextant.yml");
  // At start: the daemon does not start on a broken file, and says where.
  Deno.writeTextFileSync(config, BROKEN[0].text);
  const refused = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      new URL("../src/main.ts", import.meta.url).pathname,
      "daemon",
      "--workspace",
      root,
      "--socket",
      join(tempDirectory({ prefix: "sx-", dir: "/tmp" }), "d.sock"),
    ],
    env: { SEXTANT_CACHE_DIR: tempCache() },
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(refused.code, 2);
  assert(new TextDecoder().decode(refused.stderr).includes(`${config}:6: key 'repositoriez'`));

  // On reload: every broken file is refused with -32602 and its line; the old registry stays.
  Deno.writeTextFileSync(config, GOOD);
  const daemon = await startDaemon({ workspace: root });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    await client.request("initialize", {});
    for (const broken of BROKEN) {
      Deno.writeTextFileSync(config, broken.text);
      const error = await client.request("workspace/reload").catch((e) => e) as {
        code: number;
        message: string;
      };
      assertEquals(error.code, -32602, `${broken.name}: ${JSON.stringify(error)}`);
      assert(error.message.includes(`${config}:${broken.line}: `), error.message);
      assert(broken.names.test(error.message), error.message);
    }
    const status = await client.request("status") as { data: { repositories: unknown[] } };
    assertEquals(status.data.repositories.length, 2);
  } finally {
    client.close();
    await daemon.stop();
  }
});
