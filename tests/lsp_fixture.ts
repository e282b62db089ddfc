/**
 * Fixture repositories and helpers for the language-server tests: small Python and TypeScript
 * projects, the committed snapshot read from git HEAD (what the index holds after a refresh),
 * the servers' configuration as CI installs them, and executables written by a test.
 */
import { join } from "node:path";
import { fixtureRepository } from "./_helpers.ts";
import { LspManager, LspRouter, parseLspConfig } from "../src/lsp/mod.ts";
import type { CommittedSnapshot, RouteRequest, ServerStatus } from "../src/lsp/mod.ts";

export const PYTHON_FILES: Record<string, string> = {
  "pkg/__init__.py": "",
  "pkg/util.py": `def helper(x):
    return x * 2


class Greeter:
    def greet(self, name):
        return "hi " + name
`,
  "pkg/main.py": `from pkg.util import helper, Greeter


def run():
    value = helper(3)
    g = Greeter()
    print(g.greet("a"))
    return value


def other():
    return helper(4) + run()
`,
};

export const TYPESCRIPT_FILES: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, target: "es2020", module: "commonjs" },
    include: ["src"],
  }),
  "src/util.ts": `export function helper(x: number): number {
  return x * 2;
}

export class Greeter {
  greet(name: string): string {
    return "hi " + name;
  }
}
`,
  "src/main.ts": `import { Greeter, helper } from "./util";

export function run(): number {
  const value = helper(3);
  const g = new Greeter();
  console.log(g.greet("a"));
  return value;
}

export function other(): number {
  return helper(4) + run();
}
`,
};

/** The committed snapshot of a fixture: file text at git HEAD, as the index holds it. */
export function gitSnapshot(root: string): CommittedSnapshot {
  return {
    text(path: string): string | null {
      const out = new Deno.Command("git", {
        args: ["show", `HEAD:${path}`],
        cwd: root,
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      return out.success ? new TextDecoder().decode(out.stdout) : null;
    },
  };
}

/** `lsp.python` as a user writes it. */
export function pythonServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: ["pyright-langserver", "--stdio"], ...extra };
}

/**
 * `lsp.typescript` with the tsserver CI installs (SEXTANT_TSSERVER, set by .ci/run), else the one
 * found beside typescript-language-server; a machine without either fails the test that needs it.
 */
export function typescriptServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const tsserver = Deno.env.get("SEXTANT_TSSERVER") ?? defaultTsserver();
  return {
    command: ["typescript-language-server", "--stdio"],
    ...(tsserver ? { initialization_options: { tsserver: { path: tsserver } } } : {}),
    ...extra,
  };
}

function defaultTsserver(): string | null {
  const home = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "", ".cache");
  const path = join(
    home,
    "sextant-ci",
    "lsp-servers",
    "node_modules",
    "typescript",
    "lib",
    "tsserver.js",
  );
  try {
    return Deno.statSync(path).isFile ? path : null;
  } catch {
    return null;
  }
}

export interface LspHarness {
  manager: LspManager;
  router: LspRouter;
  /** A route request for a repository of the harness. */
  request(repo: string, language: string, waitForReadyMs?: number): RouteRequest;
  status(repo: string, server: string): ServerStatus;
}

/** A manager and router over fixture repositories with an `lsp:` section; disposed after `fn`. */
export async function withLsp<T>(
  options: { repositories: Record<string, string>; lsp: Record<string, unknown> },
  fn: (harness: LspHarness) => Promise<T>,
): Promise<T> {
  const config = parseLspConfig(options.lsp, "sextant.yml");
  const repositories = Object.entries(options.repositories).map(([name, root]) => ({ name, root }));
  const manager = new LspManager({ config, repositories });
  const router = new LspRouter(manager);
  try {
    return await fn({
      manager,
      router,
      request: (repo, language, waitForReadyMs = 60_000) => ({
        repo,
        language,
        snapshot: gitSnapshot(options.repositories[repo]),
        waitForReadyMs,
      }),
      status: (repo, server) => {
        const found = manager.status(repo).find((s) => s.server === server);
        if (!found) throw new Error(`no status for ${repo}/${server}`);
        return found;
      },
    });
  } finally {
    await manager.dispose();
  }
}

/** A fixture repository (committed). */
export function repository(files: Record<string, string>): string {
  return fixtureRepository(files);
}

/** Writes an executable script (mode 0755) and returns its path. */
export function writeExecutable(directory: string, name: string, script: string): string {
  const path = join(directory, name);
  Deno.writeTextFileSync(path, script);
  Deno.chmodSync(path, 0o755);
  return path;
}

/** Polls `check` every 50 ms until it holds, failing after `ms`. */
export async function eventually(
  what: string,
  check: () => boolean,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a process id is alive (a reaped process is not). */
export function processAlive(pid: number): boolean {
  try {
    const state = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.[0];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}
