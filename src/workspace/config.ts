import { parse as parseYaml } from "yaml";
import { isAbsolute, join, resolve } from "node:path";
import { defaultCacheDirectory } from "../store/target.ts";
import { type LspConfig, parseLspConfig } from "./lsp_config.ts";

/** One repository of the workspace registry. */
export interface RepositoryConfig {
  name: string;
  path: string;
}

/** `sextant.yml` as far as the index core needs it (repositories, discovery, cache, siblings). */
export interface WorkspaceConfig {
  root: string;
  discover: boolean;
  cacheDirectory: string;
  repositories: RepositoryConfig[];
  /** Groups of repository names whose relations resolve across each other (project siblings). */
  projectSiblings: string[][];
  /** The `lsp:` section: language servers by key (empty: none configured). */
  lsp: LspConfig;
  /** The whole parsed file, for sections read by their own modules (e.g. `embeddings`). */
  raw: Record<string, unknown>;
  /** Where the config came from, or null for the implicit single-repository workspace. */
  source: string | null;
}

/** Parses `sextant.yml` text; throws `SyntaxError` naming the bad key. */
export function parseWorkspaceConfig(
  text: string,
  configDir: string,
  source: string,
): WorkspaceConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new SyntaxError(`Cannot parse workspace config ${source}: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new SyntaxError(
      `Cannot parse workspace config ${source}: the top level is not a mapping`,
    );
  }
  const record = raw as Record<string, unknown>;
  const workspace = (record.workspace ?? {}) as Record<string, unknown>;
  if (typeof workspace !== "object" || Array.isArray(workspace)) {
    throw new SyntaxError(
      `Cannot parse workspace config ${source}: key 'workspace' is not a mapping`,
    );
  }
  const root = resolve(configDir, typeof workspace.root === "string" ? workspace.root : ".");
  const cacheDirectory = typeof workspace.cache_dir === "string"
    ? expandHome(workspace.cache_dir, configDir)
    : defaultCacheDirectory();
  const repositories: RepositoryConfig[] = [];
  const list = record.repositories ?? [];
  if (!Array.isArray(list)) {
    throw new SyntaxError(
      `Cannot parse workspace config ${source}: key 'repositories' is not a list`,
    );
  }
  const names = new Set<string>();
  for (const item of list) {
    const entry = item as Record<string, unknown>;
    if (typeof entry?.name !== "string" || typeof entry?.path !== "string") {
      throw new SyntaxError(
        `Cannot parse workspace config ${source}: every repository needs a 'name' and a 'path'`,
      );
    }
    if (names.has(entry.name)) {
      throw new SyntaxError(
        `Cannot parse workspace config ${source}: repository name '${entry.name}' is used twice`,
      );
    }
    names.add(entry.name);
    repositories.push({ name: entry.name, path: resolve(root, entry.path) });
  }
  const groups = record.project_siblings ?? [];
  if (
    !Array.isArray(groups) ||
    groups.some((group) => !Array.isArray(group) || group.some((n) => typeof n !== "string"))
  ) {
    throw new SyntaxError(
      `Cannot parse workspace config ${source}: 'project_siblings' must be a list of name lists`,
    );
  }
  return {
    root,
    discover: workspace.discover === true,
    cacheDirectory,
    repositories,
    projectSiblings: groups as string[][],
    lsp: parseLspConfig(record.lsp, source),
    raw: record,
    source,
  };
}

function expandHome(path: string, base: string): string {
  if (path === "~" || path.startsWith("~/")) return join(Deno.env.get("HOME") ?? "", path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}
