/**
 * How a configured server is launched without running anything from a repository: the
 * executable (outside every repository), a minimal environment, and per known server the
 * settings that keep it from building, downloading or loading plugins (docs/lsp.md lists them).
 * The safe values are merged over the configured ones, so configuration cannot switch them off.
 */
import { basename, dirname, join, sep } from "node:path";
import type { LspServerConfig } from "./config.ts";
import { containingRoot, resolveCommand, safeSearchPath } from "./executable.ts";

/** Everything needed to spawn and initialize one server. */
export interface LaunchPlan {
  executable: string;
  args: string[];
  env: Record<string, string>;
  initializationOptions: Record<string, unknown>;
  /** Answers to `workspace/configuration`, also sent with `didChangeConfiguration`. */
  settings: Record<string, unknown>;
  /** The safety profile applied (`pyright`, `typescript-language-server`, …, or `generic`). */
  profile: string;
  /** What the profile could not guarantee, for `status`. */
  notes: string[];
  /**
   * A `window/logMessage` line that tells the server has finished its startup work (pyright
   * lists the workspace's files only after initialize; answers before it miss other files).
   */
  readyLog: RegExp | null;
}

export interface LaunchOptions {
  /** Real paths of the workspace's repository roots (nothing under them is run). */
  repositoryRoots: string[];
  /** The daemon's environment; only the allowlist below passes through. */
  hostEnv: Record<string, string>;
}

/** Variables a server gets from the daemon's environment (PATH is filtered); nothing else. */
export const ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
];

interface Profile {
  name: string;
  matches(executableName: string, realPath: string): boolean;
  apply(plan: LaunchPlan, options: LaunchOptions & { realPath: string; key: string }): void;
}

const PROFILES: Profile[] = [
  {
    // pyright reads and type-checks; it runs only the Python interpreter to learn sys.path
    // (`python3` from the filtered PATH, or `python.pythonPath`), which must not be a repository's.
    name: "pyright",
    matches: (name, real) =>
      /^(based)?pyright(-langserver)?$/.test(name) || real.includes("pyright"),
    apply(plan, options) {
      for (const key of ["pythonPath", "defaultInterpreterPath"]) {
        const python = lookup(plan.settings, `python.${key}`);
        if (typeof python === "string") {
          refuseInsideRepository(python, `${options.key}.settings.python.${key}`, options);
        }
      }
      plan.settings = merge(plan.settings, {
        python: { analysis: { diagnosticMode: "openFilesOnly", autoImportCompletions: false } },
      });
      plan.readyLog = /^(Found \d+ source files?|No source files found)/;
    },
  },
  {
    // typescript-language-server runs tsserver; without a valid `tsserver.path` it would take
    // the repository's node_modules/typescript, so a tsserver outside every repository is
    // required. Automatic type acquisition (npm install of @types) and plugins are off.
    name: "typescript-language-server",
    matches: (name, real) =>
      name === "typescript-language-server" || real.includes(
        `${sep}typescript-language-server${sep}`,
      ),
    apply(plan, options) {
      const configured = lookup(plan.initializationOptions, "tsserver.path");
      const tsserver = typeof configured === "string"
        ? validTsserver(configured)
        : findTsserver(options.realPath, options.repositoryRoots);
      if (!tsserver) {
        throw new Error(
          typeof configured === "string"
            ? `${options.key}.initialization_options.tsserver.path: '${configured}' is not a TypeScript tsserver.js (TypeScript 5.x or 6.x)`
            : `${options.key}: no TypeScript tsserver.js found beside typescript-language-server; set initialization_options.tsserver.path to one outside the repositories (TypeScript 5.x or 6.x; 7.x ships none)`,
        );
      }
      refuseInsideRepository(tsserver, `${options.key}.initialization_options.tsserver.path`, {
        ...options,
      });
      plan.initializationOptions = merge(plan.initializationOptions, {
        tsserver: {
          path: tsserver,
          fallbackPath: tsserver,
          logVerbosity: "off",
          useSyntaxServer: "never",
        },
        disableAutomaticTypingAcquisition: true,
        plugins: [],
      });
      delete plan.initializationOptions.npmLocation;
    },
  },
  {
    // rust-analyzer: no build scripts, no proc-macro servers, no cargo check; cargo offline,
    // no rustc wrapper from a repository's .cargo/config.toml, no toolchain installs.
    name: "rust-analyzer",
    matches: (name) => name === "rust-analyzer",
    apply(plan) {
      const safe = {
        cargo: { buildScripts: { enable: false }, extraEnv: { CARGO_NET_OFFLINE: "true" } },
        procMacro: { enable: false },
        checkOnSave: false,
        check: { workspace: false },
      };
      plan.initializationOptions = merge(plan.initializationOptions, safe);
      plan.settings = merge(plan.settings, { "rust-analyzer": safe });
      Object.assign(plan.env, {
        CARGO_NET_OFFLINE: "true",
        RUSTC_WRAPPER: "",
        RUSTC_WORKSPACE_WRAPPER: "",
        RUSTUP_AUTO_INSTALL: "0",
      });
    },
  },
  {
    // gopls runs `go list`: no module downloads, no toolchain switch, no cgo compilation.
    name: "gopls",
    matches: (name) => name === "gopls",
    apply(plan) {
      Object.assign(plan.env, {
        GOPROXY: "off",
        GOFLAGS: "-mod=readonly",
        GOTOOLCHAIN: "local",
        GONOSUMDB: "*",
        GOSUMDB: "off",
        CGO_ENABLED: "0",
      });
      plan.settings = merge(plan.settings, { gopls: { vulncheck: "Off" } });
    },
  },
  {
    // clangd reads compile_commands.json; it runs a compiler only through --query-driver, which
    // is refused. Its background index would write .cache/clangd into the repository.
    name: "clangd",
    matches: (name) => name === "clangd",
    apply(plan, options) {
      if (plan.args.some((arg) => arg.startsWith("--query-driver"))) {
        throw new Error(
          `${options.key}: --query-driver is refused (it makes clangd run the compilers a compile_commands.json names)`,
        );
      }
      if (!plan.args.some((arg) => arg.startsWith("--background-index"))) {
        plan.args.push("--background-index=false");
      }
    },
  },
];

/**
 * The launch plan of a configured server; throws `Error` naming the key when the command is
 * not an executable outside the repositories or a safe setting cannot be applied.
 */
export function launchPlan(server: LspServerConfig, options: LaunchOptions): LaunchPlan {
  const key = `lsp.${server.key}`;
  const resolved = resolveCommand(server.command, {
    path: options.hostEnv.PATH ?? "",
    repositoryRoots: options.repositoryRoots,
    key: `${key}.command`,
  });
  const env: Record<string, string> = {};
  for (const name of ENV_ALLOWLIST) {
    const value = options.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH = safeSearchPath(options.hostEnv.PATH ?? "", options.repositoryRoots);
  Object.assign(env, server.env);
  const plan: LaunchPlan = {
    executable: resolved.executable,
    args: [...resolved.args],
    env,
    initializationOptions: structuredClone(server.initializationOptions),
    settings: structuredClone(server.settings),
    profile: "generic",
    notes: [],
    readyLog: null,
  };
  const name = basename(resolved.executable);
  const profile = PROFILES.find((p) => p.matches(name, resolved.realPath));
  if (profile) {
    profile.apply(plan, { ...options, realPath: resolved.realPath, key });
    plan.profile = profile.name;
  } else {
    plan.notes.push(
      `no safety profile for '${name}': it runs with the minimal environment only (docs/lsp.md)`,
    );
  }
  if (plan.env.PATH !== undefined) {
    plan.env.PATH = safeSearchPath(plan.env.PATH, options.repositoryRoots);
  }
  return plan;
}

/** The value at a dotted path of nested mappings, or undefined. */
export function lookup(tree: Record<string, unknown>, dotted: string): unknown {
  let node: unknown = tree;
  for (const part of dotted.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** `base` with `over` merged in (mappings recursively; `over` wins elsewhere). */
export function merge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isMapping(value) && isMapping(current)
      ? merge(current as Record<string, unknown>, value as Record<string, unknown>)
      : value;
  }
  return out;
}

function isMapping(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuseInsideRepository(
  path: string,
  at: string,
  options: { repositoryRoots: string[] },
): void {
  let real = path;
  try {
    real = Deno.realPathSync(path);
  } catch { /* a missing path is the server's own error */ }
  const inside = containingRoot(real, options.repositoryRoots);
  if (inside) {
    throw new Error(
      `${at}: '${path}' lies inside the repository ${inside}; a repository's own code is never run`,
    );
  }
}

/** A tsserver.js path (a file, or a TypeScript package directory), when it is one. */
function validTsserver(path: string): string | null {
  const candidates = path.endsWith(".js") ? [path] : [join(path, "lib", "tsserver.js")];
  for (const candidate of candidates) {
    try {
      if (
        Deno.statSync(candidate).isFile &&
        Deno.statSync(join(dirname(candidate), "..", "package.json")).isFile
      ) {
        return Deno.realPathSync(candidate);
      }
    } catch { /* not there */ }
  }
  return null;
}

/**
 * A tsserver.js beside typescript-language-server's own install (the same node_modules), then
 * in the usual global npm roots; none inside a repository.
 */
function findTsserver(serverRealPath: string, roots: string[]): string | null {
  const places: string[] = [];
  const marker = `${sep}node_modules${sep}`;
  const at = serverRealPath.lastIndexOf(marker);
  if (at >= 0) places.push(serverRealPath.slice(0, at + marker.length - 1));
  places.push("/usr/local/lib/node_modules", "/usr/lib/node_modules");
  for (const place of places) {
    const found = validTsserver(join(place, "typescript"));
    if (found && containingRoot(found, roots) === null) return found;
  }
  return null;
}
