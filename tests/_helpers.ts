/** Fixture repositories written by the tests, and ways to run the product on them. */
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runAction } from "../src/actions/dispatch.ts";
import { TargetReader } from "../src/store/reader.ts";
import type { Envelope } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";

export const PROJECT_ROOT = new URL("../", import.meta.url).pathname;

/** Temporary directories this test module made: removed when it ends (`unload`). */
const TEMPORARY = new Set<string>();
globalThis.addEventListener("unload", () => {
  for (const path of TEMPORARY) {
    try {
      Deno.removeSync(path, { recursive: true });
    } catch { /* gone already, or not ours to remove */ }
  }
});

/** A temporary directory, removed with everything in it when the test module ends. */
export function tempDirectory(options: Deno.MakeTempOptions = {}): string {
  const path = Deno.makeTempDirSync(options);
  TEMPORARY.add(path);
  return path;
}

/** Creates a temporary repository from a map of path → content (`null` content skips). */
export function fixtureRepository(
  files: Record<string, string | Uint8Array>,
  options: { git?: boolean } = {},
): string {
  const root = tempDirectory({ prefix: "sextant-fixture-" });
  writeFiles(root, files);
  if (options.git ?? true) {
    git(root, "init", "-q");
    git(root, "add", "-A");
    commit(root, "fixture");
  }
  return Deno.realPathSync(root);
}

/** Commits what is staged (or nothing) as a test author. */
export function commit(root: string, message: string): void {
  git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", message, "--allow-empty");
}

/** Writes files below a root, creating directories. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    Deno.mkdirSync(dirname(full), { recursive: true });
    if (typeof content === "string") Deno.writeTextFileSync(full, content);
    else Deno.writeFileSync(full, content);
  }
}

/** The promise's value, or a failure naming `what` once `ms` pass without one (a hang guard). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs git in a directory; throws on failure. */
export function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** A fresh cache directory for one test. */
export function tempCache(): string {
  return tempDirectory({ prefix: "sextant-cache-" });
}

/** Opens a workspace on a fixture with its own cache, runs `fn`, and closes it. */
export async function withWorkspace<T>(
  root: string,
  fn: (
    workspace: Workspace,
    run: (action: string, params?: Record<string, unknown>) => Promise<Envelope>,
  ) => Promise<T>,
  cache = tempCache(),
): Promise<T> {
  const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
  try {
    return await fn(workspace, (action, params = {}) => runAction(workspace, action, params));
  } finally {
    workspace.close();
  }
}

/** A read-only connection to a workspace's single target, for asserting rows. */
export function openTarget(workspace: Workspace): DatabaseSync {
  return new DatabaseSync(workspace.repositories[0].location.databasePath, { readOnly: true });
}

/** Counts rows of a table (or the result of a query). */
export function count(db: DatabaseSync, sql: string, ...params: (string | number)[]): number {
  const row = db.prepare(sql.startsWith("SELECT") ? sql : `SELECT count(*) AS n FROM ${sql}`)
    .get(...params) as Record<string, number>;
  return Number(Object.values(row)[0]);
}

/** A stored relation as tests compare it: where it is and the qualified name it is written in. */
export interface RelationFact {
  kind: string;
  target: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
  path: string;
  line: number;
  from: string | null;
}

/**
 * Every relation of a target (unpacked by the target's reader), by line and
 * column, with the qualified name of the symbol it is written in.
 */
export function relationFacts(db: DatabaseSync): RelationFact[] {
  const qualified = new Map(
    db.prepare("SELECT id, qualified_name FROM code_symbols").all()
      .map((row) => [row.id as string, row.qualified_name as string]),
  );
  return new TargetReader(db).relationsOfKinds()
    .sort((a, b) => a.startLine - b.startLine || a.startCol - b.startCol)
    .map((row) => ({
      kind: row.kind,
      target: row.target,
      receiver: row.receiver,
      module: row.module,
      alias: row.alias,
      path: row.path,
      line: row.startLine,
      from: row.fromSymbol === null ? null : qualified.get(row.fromSymbol) ?? null,
    }));
}

/** Runs the CLI as a real process; returns exit code, stdout and stderr. */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      join(PROJECT_ROOT, "src/main.ts"),
      ...args,
    ],
    cwd: options.cwd,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** A daemon started as a real process on its own socket (tests named "(real socket)"). */
export interface DaemonProcess {
  socket: string;
  process: Deno.ChildProcess;
  /** Everything the daemon wrote to stderr so far (its traces). */
  stderr: () => string;
  /** Sends SIGTERM and waits for the exit status. */
  stop: () => Promise<Deno.CommandStatus>;
}

/** A private (0700) directory for sockets, short enough for a Unix socket path. */
export function socketDirectory(): string {
  return tempDirectory({ prefix: "sx-", dir: "/tmp" });
}

/** Starts `sextant daemon` and waits until it answers on its socket. */
export async function startDaemon(options: {
  workspace: string;
  cache?: string;
  socket?: string;
  args?: string[];
  env?: Record<string, string>;
  /** A command that runs the daemon (e.g. `["prlimit", "--nofile=256"]`); it must exec it. */
  launcher?: string[];
}): Promise<DaemonProcess> {
  const socket = options.socket ?? join(socketDirectory(), "d.sock");
  const launcher = options.launcher ?? [];
  const process = new Deno.Command(launcher[0] ?? Deno.execPath(), {
    args: [
      ...(launcher.length > 0 ? [...launcher.slice(1), Deno.execPath()] : []),
      "run",
      "--unstable-worker-options",
      "--allow-all",
      join(PROJECT_ROOT, "src/main.ts"),
      "daemon",
      "--socket",
      socket,
      "--workspace",
      options.workspace,
      ...(options.args ?? []),
    ],
    env: { SEXTANT_CACHE_DIR: options.cache ?? tempCache(), ...options.env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of process.stderr) log += decoder.decode(chunk, { stream: true });
  })();
  const deadline = Date.now() + 30_000;
  let exited = false;
  process.status.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    try {
      (await Deno.connect({ transport: "unix", path: socket })).close();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  if (exited) {
    await reading;
    throw new Error(`daemon exited before listening: ${log}`);
  }
  return {
    socket,
    process,
    stderr: () => log,
    stop: async () => {
      try {
        process.kill("SIGTERM");
      } catch { /* already gone */ }
      const status = await process.status;
      await reading;
      return status;
    },
  };
}

/** Sends raw bytes on a new connection and collects every frame until the daemon closes or `ms` pass. */
export async function rawExchange(
  socket: string,
  bytes: Uint8Array | string,
  options: { frames?: number; ms?: number } = {},
): Promise<unknown[]> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  try {
    let written = 0;
    while (written < data.length) written += await conn.write(data.subarray(written));
  } catch { /* the daemon may close first */ }
  const frames: unknown[] = [];
  let buffer = "";
  const decoder = new TextDecoder();
  const timer = setTimeout(() => conn.close(), options.ms ?? 5000);
  try {
    const chunk = new Uint8Array(65536);
    while (frames.length < (options.frames ?? 1)) {
      const n = await conn.read(chunk);
      if (n === null) break;
      buffer += decoder.decode(chunk.subarray(0, n), { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        frames.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    }
  } catch { /* closed */ }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return frames;
}

/** Python files whose every statement holds `**` in a comment: grep parses them all, finds nothing. */
export function slowGrepFixture(files: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    out[`pkg/m${i}.py`] = Array.from(
      { length: 40 },
      (_, j) => `def f_${i}_${j}(x):  # x ** 2 is not here\n    return [x, ${j}, (x, ${i})]\n`,
    ).join("");
  }
  return out;
}
