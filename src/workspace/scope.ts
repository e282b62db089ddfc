/**
 * The scope of one request, built once at the boundary and handed to every
 * backend: which repositories the caller may see and which of them the request
 * addresses, the resolver scope of each, the compiled `paths` filter, the
 * `language` filter, the caller's path rule, cancellation and progress.
 *
 * A repository the caller may not see is answered exactly like one that does
 * not exist; `repo` picks the repositories to answer from and never narrows a
 * resolver scope.
 */
import picomatch from "picomatch";
import { WireError } from "../protocol/errors.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { join, relative, sep } from "node:path";
import { normaliseRequestPath, type Repository, type Workspace } from "./workspace.ts";
import type { PathRule } from "./visible.ts";

/**
 * Who is asking and what they may see: built by the policy for an agent, empty
 * for the local user (who sees everything).
 */
export interface AccessContext {
  /** Names of the repositories the caller may see; absent: all of them. */
  repositories?: ReadonlySet<string>;
  /** Whether the caller may see a path of a repository; absent: every path. */
  allowPath?: (repo: string, path: string) => boolean;
  /**
   * Whether only some paths of a repository are visible (then whole-repository
   * counts, sizes and reports must not be shown); absent: none is restricted.
   */
  pathRestricted?: (repo: string) => boolean;
  /**
   * The caller's path rule of a repository with a stable key, or null when it
   * sees every path (statistics over the visible part are kept per key).
   */
  pathRule?: (repo: string) => PathRule | null;
  /** Aborted when the request is cancelled. */
  signal?: AbortSignal;
  onProgress?: (repo: string, progress: RefreshProgress) => void;
}

/** The params every scope is built from (each optional; other params are the action's). */
export interface ScopeParams {
  repo?: string;
  /** A repository-relative file the request is about (navigation, outline, context). */
  path?: string;
  paths?: string[];
  language?: string;
}

/** The repositories of a workspace a caller may see, in workspace order. */
export function visibleRepositories(workspace: Workspace, access: AccessContext): Repository[] {
  return workspace.repositories.filter((repo) =>
    !access.repositories || access.repositories.has(repo.name)
  );
}

export class RequestScope {
  readonly workspace: Workspace;
  /** Every repository the caller may see. */
  readonly visible: readonly Repository[];
  /** The repositories the request answers from: the one `repo` names, else every visible one. */
  readonly repositories: readonly Repository[];
  /** The `language` param, or null. */
  readonly language: string | null;
  /** The `paths` globs as given (empty: no filter). */
  readonly paths: readonly string[];
  readonly access: AccessContext;
  readonly #byName: Map<string, Repository>;
  readonly #pathFilter: ((path: string) => boolean) | null;

  private constructor(
    workspace: Workspace,
    params: ScopeParams,
    access: AccessContext,
  ) {
    this.workspace = workspace;
    this.access = access;
    this.visible = visibleRepositories(workspace, access);
    this.#byName = new Map(this.visible.map((repo) => [repo.name, repo]));
    if (params.repo !== undefined) {
      const named = this.#byName.get(params.repo);
      if (!named) {
        throw new WireError(
          "RepositoryNotFound",
          `Repository '${params.repo}' is not in the workspace`,
        );
      }
      this.repositories = [named];
    } else {
      this.repositories = this.visible;
    }
    this.language = params.language ?? null;
    this.paths = params.paths ?? [];
    for (const glob of this.paths) {
      if (glob.startsWith("/") || glob.split("/").includes("..")) {
        throw new WireError(
          "PathRejected",
          `Path '${glob}' must be relative and may not contain '..'`,
        );
      }
    }
    this.#pathFilter = this.paths.length > 0 ? picomatch([...this.paths], { dot: true }) : null;
    if (typeof params.path === "string") {
      for (const repo of this.repositories) rejectEscapingPath(repo, params.path);
    }
  }

  /**
   * The scope of a request; throws `RepositoryNotFound` for a `repo` the caller
   * cannot see and `PathRejected` for an absolute or `..` glob.
   */
  static build(
    workspace: Workspace,
    params: ScopeParams,
    access: AccessContext = {},
  ): RequestScope {
    return new RequestScope(workspace, params, access);
  }

  get signal(): AbortSignal | undefined {
    return this.access.signal;
  }

  /** A visible repository by name, or null (an invisible one is answered as absent). */
  repository(name: string): Repository | null {
    return this.#byName.get(name) ?? null;
  }

  /**
   * The resolver scope of a repository: itself plus its visible project
   * siblings (never narrowed by `repo`); empty for a repository not visible.
   */
  resolverScope(name: string): Repository[] {
    if (!this.#byName.has(name)) return [];
    const names = new Set([name, ...this.workspace.siblingsOf(name)]);
    return this.visible.filter((repo) => names.has(repo.name));
  }

  /**
   * Every repository an answer from the addressed ones may need: each one's
   * resolver scope, in workspace order (what a resolving action refreshes).
   */
  resolverRepositories(): Repository[] {
    const names = new Set(
      this.repositories.flatMap((repo) => this.resolverScope(repo.name)).map((r) => r.name),
    );
    return this.visible.filter((repo) => names.has(repo.name));
  }

  /** Whether the caller may see a path of a repository (the repository must be visible). */
  allowPath(repo: string, path: string): boolean {
    return this.#byName.has(repo) && (this.access.allowPath?.(repo, path) ?? true);
  }

  /** Whether only some paths of a repository are visible to the caller. */
  pathRestricted(repo: string): boolean {
    return this.access.pathRestricted?.(repo) ?? false;
  }

  /**
   * The caller's path rule of a repository, or null when it sees every path
   * (then nothing it is shown needs computing over a visible part).
   */
  pathRule(repo: string): PathRule | null {
    if (!this.pathRestricted(repo)) return null;
    return this.access.pathRule?.(repo) ??
      { key: null, allow: (path) => this.allowPath(repo, path) };
  }

  /** Whether a path passes the request's `paths` globs. */
  matchesPaths(path: string): boolean {
    return this.#pathFilter === null || this.#pathFilter(path);
  }

  /** Whether a language passes the request's `language` filter. */
  matchesLanguage(language: string | null): boolean {
    return this.language === null || language === this.language;
  }

  /** The caller may see it and the request's `paths` and `language` filters keep it. */
  accepts(repo: string, path: string, language: string | null): boolean {
    return this.matchesPaths(path) && this.matchesLanguage(language) && this.allowPath(repo, path);
  }

  /** Throws `RequestCancelled` once the request is cancelled (`what`: the action, for the message). */
  throwIfCancelled(what?: string): void {
    if (!this.access.signal?.aborted) return;
    throw new WireError("RequestCancelled", what ? `${what} was cancelled` : "Request cancelled");
  }

  /** The progress listener of one repository's refresh, if the caller listens. */
  progressOf(repo: Repository): ((progress: RefreshProgress) => void) | undefined {
    const listener = this.access.onProgress;
    return listener ? (progress) => listener(repo.name, progress) : undefined;
  }
}

/**
 * Throws `PathRejected` when a request path leads out of a repository through a
 * symlink (any component of it whose real path is outside the root). A path that
 * does not exist in the working tree is left to the action (it may be indexed).
 */
function rejectEscapingPath(repo: Repository, path: string): void {
  const parts = normaliseRequestPath(path).split("/").filter((part) => part !== "");
  let current = repo.root;
  for (const part of parts) {
    current = join(current, part);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(current);
    } catch {
      return;
    }
    if (!info.isSymlink) continue;
    let real: string;
    try {
      real = Deno.realPathSync(current);
    } catch {
      return; // A dangling link reads nothing.
    }
    const inside = relative(repo.root, real);
    if (inside === ".." || inside.startsWith(`..${sep}`) || inside.startsWith(sep)) {
      throw new WireError(
        "PathRejected",
        `Path '${path}' leads out of repository '${repo.name}' through a symlink`,
      );
    }
    current = real;
  }
}
