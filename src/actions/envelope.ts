import type {
  ActionName,
  Envelope,
  Provenance,
  RepositoryState,
  ResultHit,
} from "../protocol/types.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import { type PathRule, visibleView } from "../workspace/visible.ts";

/** A fresh trace id for one request. */
export function traceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The generation and HEAD of each repository that answered, as the caller may
 * see them: for a repository of which the caller sees only some paths
 * (`rules.pathRule`), the version of its visible part and no HEAD
 * (`src/workspace/visible.ts` says why).
 */
export function repositoryStates(
  workspace: Workspace,
  repos: readonly Repository[],
  rules?: { pathRule(repo: string): PathRule | null },
): RepositoryState[] {
  return repos.map((repo) => {
    const rule = rules?.pathRule(repo.name) ?? null;
    const state = workspace.withReader(
      repo,
      (reader) =>
        rule
          ? { generation: visibleView(reader, rule).version, head: null }
          : { generation: reader.generation(), head: reader.head() },
    );
    return {
      name: repo.name,
      generation: state.value?.generation ?? 0,
      head: state.value?.head ?? null,
    };
  });
}

/** Builds the envelope every action answers with. */
export function envelope<D = never>(options: {
  action: ActionName;
  results: ResultHit[];
  provenance: Partial<Provenance> & Pick<Provenance, "backend" | "confidence">;
  repositories: RepositoryState[];
  limitations?: string[];
  truncated?: boolean;
  nextCursor?: string | null;
  data?: D;
}): Envelope<D> {
  return {
    action: options.action,
    results: options.results,
    provenance: {
      fresh: true,
      fallback_used: false,
      fallback_reason: null,
      ...options.provenance,
    },
    repositories: options.repositories,
    limitations: options.limitations ?? [],
    truncated: options.truncated ?? false,
    next_cursor: options.nextCursor ?? null,
    trace_id: traceId(),
    ...(options.data === undefined ? {} : { data: options.data }),
  };
}
