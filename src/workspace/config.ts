/**
 * `sextant.yml`, read and checked whole when it loads: every section (workspace,
 * repositories, project siblings, agents, embeddings, lsp), unknown keys, and —
 * once discovery has added its repositories — every repository name the file
 * uses. A mistake is one `InvalidParams` error naming the file, the line and
 * the key, the same from the CLI, the daemon and MCP.
 */
import type * as Yaml from "yaml";
import { basename, isAbsolute, join, resolve } from "node:path";
import { WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import { defaultCacheDirectory } from "../store/cache_directory.ts";
import { embeddingConfig } from "../indexer/embeddings.ts";
import { type LspConfig, parseLspConfig } from "./lsp_config.ts";
import { gitTopLevel } from "../indexer/git.ts";

/** Where a workspace's config is read from. */
export interface WorkspaceConfigOptions {
  /** The workspace directory (default: the current directory). */
  directory?: string;
  /** `sextant.yml` path (default: `<directory>/sextant.yml` when present). */
  configPath?: string;
  cacheDirectory?: string;
}

/** One repository of the workspace registry. */
export interface RepositoryConfig {
  name: string;
  path: string;
}

/** One agent of `sextant.yml`'s `agents` section. */
export interface AgentSpec {
  name: string;
  tokenEnv: string | null;
  tokenSha256: string | null;
  repositories: "*" | string[];
  paths: Record<string, string[]>;
  actions: string[] | null;
  maxResults: number | null;
  mode: "full" | "summary";
  /** May call the daemon's own administrative methods (`workspace/reload`). */
  admin: boolean;
}

/** `sextant.yml` as far as the index core needs it (repositories, discovery, cache, siblings). */
export interface WorkspaceConfig {
  root: string;
  discover: boolean;
  cacheDirectory: string;
  repositories: RepositoryConfig[];
  /** Groups of repository names whose relations resolve across each other (project siblings). */
  projectSiblings: string[][];
  /** The `agents` section, checked at load; null without one (a single local user). */
  agents?: AgentSpec[] | null;
  /** The `lsp:` section, checked at load (no servers when absent). */
  lsp?: LspConfig;
  /**
   * `workspace.max_file_size`: the largest file size a repository's own settings may ask for
   * (absent: the built-in default, 1 MiB).
   */
  maxFileSize?: number;
  /** The whole parsed file, for sections read by their own modules (e.g. `embeddings`). */
  raw: Record<string, unknown>;
  /** Where the config came from, or null for the implicit single-repository workspace. */
  source: string | null;
  /** The file's text, for naming the line of a mistake found after discovery. */
  text?: string;
}

const TOP_KEYS = ["workspace", "repositories", "project_siblings", "agents", "embeddings", "lsp"];
const WORKSPACE_KEYS = ["root", "discover", "cache_dir", "max_file_size"];
const REPOSITORY_KEYS = ["name", "path"];
const AGENT_KEYS = [
  "token_env",
  "token_sha256",
  "repositories",
  "paths",
  "actions",
  "max_results",
  "mode",
  "admin",
];
/** Actions an agent may be granted: every method, and those answered by later backends. */
const AGENT_ACTIONS = new Set([...Object.keys(METHODS), "map", "outline", "context", "verify"]);

type KeyPath = (string | number)[];

/** A mistake in the file at a key: becomes the one config error with its line. */
class ConfigMistake extends Error {
  readonly at: KeyPath;
  constructor(at: KeyPath, message: string) {
    super(message);
    this.at = at;
  }
}

/** The error every config mistake becomes: `InvalidParams`, with the file and line. */
function configError(source: string, line: number | null, message: string): WireError {
  return new WireError(
    "InvalidParams",
    `Cannot parse workspace config ${source}${line === null ? "" : `:${line}`}: ${message}`,
  );
}

/**
 * The 1-based line of a key (or of a list item) in the file; the nearest
 * enclosing key that exists when the path goes deeper than the file does.
 */
function lineOfKey(yaml: typeof Yaml, text: string, at: KeyPath): number | null {
  const { isMap, isScalar, isSeq } = yaml;
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter });
  for (let depth = at.length; depth > 0; depth--) {
    const parent = depth === 1 ? document.contents : document.getIn(at.slice(0, depth - 1), true);
    const last = at[depth - 1];
    let offset: number | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === last);
      const key = pair?.key;
      offset = isScalar(key) ? key.range?.[0] : undefined;
    } else if (isSeq(parent) && typeof last === "number") {
      const item = parent.items[last] as { range?: [number, number, number] } | undefined;
      offset = item?.range?.[0];
    }
    if (offset !== undefined) return lineCounter.linePos(offset).line;
  }
  return null;
}

/**
 * Parses `sextant.yml` text; throws `WireError` (`InvalidParams`) naming the line and key. The
 * YAML library is loaded here, when a workspace has the file (~70 ms of a `query` process's
 * start otherwise).
 */
export async function parseWorkspaceConfig(
  text: string,
  configDir: string,
  source: string,
): Promise<WorkspaceConfig> {
  const yaml = await import("yaml");
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, uniqueKeys: true });
  const broken = document.errors[0];
  if (broken) {
    const line = broken.linePos?.[0]?.line ?? null;
    throw configError(
      source,
      line,
      broken.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, ""),
    );
  }
  try {
    return readConfig(document.toJS() ?? {}, configDir, source, text);
  } catch (error) {
    if (error instanceof ConfigMistake) {
      throw configError(source, lineOfKey(yaml, text, error.at), error.message);
    }
    throw error;
  }
}

function readConfig(
  raw: unknown,
  configDir: string,
  source: string,
  text: string,
): WorkspaceConfig {
  if (!isRecord(raw)) throw new ConfigMistake([], "the top level is not a mapping");
  onlyKeys(raw, TOP_KEYS, []);
  const workspace = raw.workspace ?? {};
  if (!isRecord(workspace)) {
    throw new ConfigMistake(["workspace"], "key 'workspace' is not a mapping");
  }
  onlyKeys(workspace, WORKSPACE_KEYS, ["workspace"]);
  for (const key of ["root", "cache_dir"]) {
    if (workspace[key] !== undefined && typeof workspace[key] !== "string") {
      throw new ConfigMistake(["workspace", key], `key 'workspace.${key}' is not a string`);
    }
  }
  if (workspace.discover !== undefined && typeof workspace.discover !== "boolean") {
    throw new ConfigMistake(
      ["workspace", "discover"],
      "key 'workspace.discover' is not true or false",
    );
  }
  const maxFileSize = workspace.max_file_size;
  if (
    maxFileSize !== undefined &&
    (typeof maxFileSize !== "number" || !Number.isInteger(maxFileSize) || maxFileSize <= 0)
  ) {
    throw new ConfigMistake(
      ["workspace", "max_file_size"],
      "key 'workspace.max_file_size' is not a positive integer",
    );
  }
  const root = resolve(configDir, typeof workspace.root === "string" ? workspace.root : ".");
  const cacheDirectory = typeof workspace.cache_dir === "string"
    ? expandHome(workspace.cache_dir, configDir)
    : defaultCacheDirectory();
  const repositories: RepositoryConfig[] = [];
  const list = raw.repositories ?? [];
  if (!Array.isArray(list)) {
    throw new ConfigMistake(["repositories"], "key 'repositories' is not a list");
  }
  const names = new Set<string>();
  for (const [i, item] of list.entries()) {
    if (!isRecord(item) || typeof item.name !== "string" || typeof item.path !== "string") {
      throw new ConfigMistake(
        ["repositories", i],
        "every repository needs a 'name' and a 'path'",
      );
    }
    onlyKeys(item, REPOSITORY_KEYS, ["repositories", i]);
    if (names.has(item.name)) {
      throw new ConfigMistake(
        ["repositories", i, "name"],
        `repository name '${item.name}' is used twice`,
      );
    }
    names.add(item.name);
    repositories.push({ name: item.name, path: resolve(root, item.path) });
  }
  const groups = raw.project_siblings ?? [];
  if (!Array.isArray(groups)) {
    throw new ConfigMistake(
      ["project_siblings"],
      "'project_siblings' must be a list of name lists",
    );
  }
  for (const [i, group] of groups.entries()) {
    if (!Array.isArray(group) || group.some((name) => typeof name !== "string")) {
      throw new ConfigMistake(
        ["project_siblings", i],
        "'project_siblings' must be a list of name lists",
      );
    }
  }
  const agents = parseAgents(raw.agents);
  try {
    embeddingConfig(raw);
  } catch (error) {
    const key = /'(embeddings(?:\.\w+)?)'/.exec((error as Error).message)?.[1] ?? "embeddings";
    const message = (error as Error).message.replace(/^Cannot parse sextant\.yml: /, "");
    throw new ConfigMistake(key.split("."), message);
  }
  let lsp: LspConfig;
  try {
    lsp = parseLspConfig(raw.lsp, source);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const message = error.message.replace(`Cannot parse workspace config ${source}: `, "");
    const key = /^(lsp(?:\.[\w+-]+)*)/.exec(message)?.[1] ?? "lsp";
    throw new ConfigMistake(key.split("."), message);
  }
  return {
    root,
    discover: workspace.discover === true,
    cacheDirectory,
    repositories,
    projectSiblings: groups as string[][],
    agents,
    lsp,
    ...(typeof maxFileSize === "number" ? { maxFileSize } : {}),
    raw,
    source,
    text,
  };
}

/**
 * Checks every repository name the file uses (project siblings, agents'
 * repositories and paths) against the repositories of the workspace, after
 * discovery has added its own; throws `WireError` (`InvalidParams`) with the line.
 */
export async function checkRepositoryNames(config: WorkspaceConfig): Promise<void> {
  const known = new Set(config.repositories.map((repo) => repo.name));
  const yaml = config.text ? await import("yaml") : null;
  const fail = (at: KeyPath, message: string): never => {
    const source = config.source ?? "sextant.yml";
    const line = yaml && config.text ? lineOfKey(yaml, config.text, at) : null;
    throw configError(source, line, message);
  };
  const list = [...known].sort().join(", ");
  for (const [i, group] of config.projectSiblings.entries()) {
    for (const [j, name] of group.entries()) {
      if (!known.has(name)) {
        fail(
          ["project_siblings", i, j],
          `project_siblings names unknown repository '${name}' (known: ${list})`,
        );
      }
    }
  }
  for (const agent of config.agents ?? []) {
    if (agent.repositories !== "*") {
      for (const [i, name] of agent.repositories.entries()) {
        if (!known.has(name)) {
          fail(
            ["agents", agent.name, "repositories", i],
            `agent '${agent.name}' names unknown repository '${name}' (known: ${list})`,
          );
        }
      }
    }
    for (const name of Object.keys(agent.paths)) {
      if (!known.has(name)) {
        fail(
          ["agents", agent.name, "paths", name],
          `agent '${agent.name}' key 'paths' names unknown repository '${name}' (known: ${list})`,
        );
      }
    }
  }
}

/**
 * Parses the `agents` section; null when there is none (a single local user,
 * full access). Throws `SyntaxError` "Cannot parse workspace config <source>: …"
 * when called with a source; at load, the mistake carries the key's line.
 */
export function parseAgents(raw: unknown, source?: string): AgentSpec[] | null {
  if (source === undefined) return readAgents(raw);
  try {
    return readAgents(raw);
  } catch (error) {
    if (!(error instanceof ConfigMistake)) throw error;
    throw new SyntaxError(`Cannot parse workspace config ${source}: ${error.message}`);
  }
}

function readAgents(raw: unknown): AgentSpec[] | null {
  if (raw === undefined || raw === null) return null;
  if (!isRecord(raw)) throw new ConfigMistake(["agents"], "key 'agents' is not a mapping");
  const agents: AgentSpec[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const at = (...keys: string[]): KeyPath => ["agents", name, ...keys];
    const fail = (key: string | null, what: string): never => {
      throw new ConfigMistake(key ? at(key) : at(), what);
    };
    if (!isRecord(value)) fail(null, `agent '${name}' is not a mapping`);
    const entry = value as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!AGENT_KEYS.includes(key)) {
        fail(key, `agent '${name}' key '${key}' is not a known key (${AGENT_KEYS.join(", ")})`);
      }
    }
    const stringList = (key: string): string[] | null => {
      const list = entry[key];
      if (list === undefined || list === null) return null;
      if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
        fail(key, `agent '${name}' key '${key}' is not a list of strings`);
      }
      return list as string[];
    };
    const tokenEnv = entry.token_env;
    const tokenSha256 = entry.token_sha256;
    if (tokenEnv !== undefined && typeof tokenEnv !== "string") {
      fail("token_env", `agent '${name}' key 'token_env' is not a string`);
    }
    if (
      tokenSha256 !== undefined &&
      (typeof tokenSha256 !== "string" || !/^[0-9a-fA-F]{64}$/.test(tokenSha256))
    ) {
      fail("token_sha256", `agent '${name}' key 'token_sha256' is not 64 hex digits`);
    }
    if (tokenEnv === undefined && tokenSha256 === undefined) {
      fail(null, `agent '${name}' needs 'token_env' or 'token_sha256'`);
    }
    const repositories = entry.repositories === "*" ? "*" : stringList("repositories") ?? [];
    const paths: Record<string, string[]> = {};
    if (entry.paths !== undefined && entry.paths !== null) {
      if (!isRecord(entry.paths)) fail("paths", `agent '${name}' key 'paths' is not a mapping`);
      for (const [repo, globs] of Object.entries(entry.paths as Record<string, unknown>)) {
        const list = typeof globs === "string" ? [globs] : globs;
        if (!Array.isArray(list) || list.some((glob) => typeof glob !== "string")) {
          throw new ConfigMistake(
            at("paths", repo),
            `agent '${name}' paths of '${repo}' are not a list of globs`,
          );
        }
        paths[repo] = list as string[];
      }
    }
    const maxResults = entry.max_results;
    if (
      maxResults !== undefined &&
      (typeof maxResults !== "number" || !Number.isInteger(maxResults) || maxResults < 1)
    ) {
      fail("max_results", `agent '${name}' key 'max_results' is not a positive whole number`);
    }
    const mode = entry.mode ?? "full";
    if (mode !== "full" && mode !== "summary") {
      fail("mode", `agent '${name}' key 'mode' is not 'full' or 'summary'`);
    }
    if (entry.admin !== undefined && typeof entry.admin !== "boolean") {
      fail("admin", `agent '${name}' key 'admin' is not true or false`);
    }
    const actions = stringList("actions");
    for (const [i, action] of (actions ?? []).entries()) {
      if (!AGENT_ACTIONS.has(action)) {
        throw new ConfigMistake(
          ["agents", name, "actions", i],
          `agent '${name}' names unknown action '${action}'`,
        );
      }
    }
    agents.push({
      name,
      tokenEnv: (tokenEnv as string | undefined) ?? null,
      tokenSha256: (tokenSha256 as string | undefined)?.toLowerCase() ?? null,
      repositories,
      paths,
      actions,
      maxResults: (maxResults as number | undefined) ?? null,
      mode: mode as "full" | "summary",
      admin: entry.admin === true,
    });
  }
  return agents;
}

/** Throws at the first key of a mapping that is not one of `known`. */
function onlyKeys(record: Record<string, unknown>, known: string[], at: KeyPath): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const where = at.length === 0
      ? ""
      : ` under '${at.filter((k) => typeof k === "string").join(".")}'`;
    throw new ConfigMistake(
      [...at, key],
      `key '${key}'${where} is not a known key (${known.join(", ")})`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function expandHome(path: string, base: string): string {
  if (path === "~" || path.startsWith("~/")) return join(Deno.env.get("HOME") ?? "", path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}

/**
 * Reads the workspace config: `sextant.yml` (or `configPath`), else the
 * implicit single-repository workspace; adds discovered repositories.
 */
export async function loadWorkspaceConfig(
  options: WorkspaceConfigOptions = {},
): Promise<WorkspaceConfig> {
  const directory = resolve(options.directory ?? Deno.cwd());
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(directory);
  } catch {
    throw new WireError(
      "RepositoryNotFound",
      `Cannot open workspace: '${directory}' does not exist`,
    );
  }
  if (!info.isDirectory) {
    throw new WireError(
      "RepositoryNotFound",
      `Cannot open workspace: '${directory}' is not a directory`,
    );
  }
  const configPath = options.configPath ?? join(directory, "sextant.yml");
  let config: WorkspaceConfig;
  let text: string | null = null;
  try {
    text = Deno.readTextFileSync(configPath);
  } catch (error) {
    if (options.configPath) {
      throw new WireError(
        "InvalidParams",
        `Cannot read config '${configPath}': ${(error as Error).message}`,
      );
    }
  }
  if (text !== null) {
    config = await parseWorkspaceConfig(text, resolve(configPath, ".."), resolve(configPath));
  } else {
    const top = (await gitTopLevel(directory)) ?? directory;
    config = {
      root: top,
      discover: false,
      cacheDirectory: defaultCacheDirectory(),
      repositories: [{ name: basename(top) || "root", path: top }],
      projectSiblings: [],
      lsp: new Map(),
      raw: {},
      source: null,
    };
  }
  if (options.cacheDirectory) config.cacheDirectory = resolve(options.cacheDirectory);
  if (config.discover) {
    // Loaded here only: discovery's walk (and its ignore rules) is not needed otherwise.
    const { discoverRepositories, mergeDiscovered } = await import("./discover.ts");
    config.repositories = mergeDiscovered(config.repositories, discoverRepositories(config.root));
  }
  if (config.repositories.length === 0) {
    config.repositories.push({ name: basename(config.root) || "root", path: config.root });
  }
  // Names the file uses must name repositories, those discovery added included.
  await checkRepositoryNames(config);
  return config;
}
