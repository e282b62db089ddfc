/** Fixture repositories written by the tests, and ways to run the product on them. */
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runAction } from "../src/actions/dispatch.ts";
import type { Envelope } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";

export const PROJECT_ROOT = new URL("../", import.meta.url).pathname;

/** Creates a temporary repository from a map of path → content (`null` content skips). */
export function fixtureRepository(
  files: Record<string, string | Uint8Array>,
  options: { git?: boolean } = {},
): string {
  const root = Deno.makeTempDirSync({ prefix: "sextant-fixture-" });
  writeFiles(root, files);
  if (options.git ?? true) {
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(
      root,
      "-c",
      "user.email=t@t",
      "-c",
      "user.name=t",
      "commit",
      "-qm",
      "fixture",
      "--allow-empty",
    );
  }
  return Deno.realPathSync(root);
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
  return Deno.makeTempDirSync({ prefix: "sextant-cache-" });
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
