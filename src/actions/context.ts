import type { RefreshProgress } from "../indexer/refresh.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";

/**
 * Who is asking and what they may see. Built by the caller (CLI: full access;
 * daemon: the agent's policy) and passed to every action, which must never
 * read or return anything outside it.
 */
export interface ActionContext {
  /** Names of the repositories the caller may see; absent: all of them. */
  repositories?: ReadonlySet<string>;
  /** Whether the caller may see a path of a repository; absent: every path. */
  allowPath?: (repo: string, path: string) => boolean;
  /**
   * Whether only some paths of a repository are visible (then whole-repository
   * counts, sizes and reports must not be shown); absent: none is restricted.
   */
  pathRestricted?: (repo: string) => boolean;
  /** Aborted when the request is cancelled. */
  signal?: AbortSignal;
  onProgress?: (repo: string, progress: RefreshProgress) => void;
}

/** The repositories of the workspace visible in a context. */
export function visibleRepositories(workspace: Workspace, context: ActionContext): Repository[] {
  return workspace.repositories.filter((repo) =>
    !context.repositories || context.repositories.has(repo.name)
  );
}

/**
 * The resolver's scope for navigation from a repository (SPEC §9): the
 * repository plus its project siblings, restricted to what the context may see.
 */
export function resolverScope(
  workspace: Workspace,
  active: Repository,
  context: ActionContext,
): Repository[] {
  const visible = visibleRepositories(workspace, context);
  const siblings = workspace.siblingsOf(active.name);
  const names = new Set([active.name, ...siblings]);
  return visible.filter((repo) => names.has(repo.name));
}
