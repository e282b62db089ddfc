import { validateParams } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { search, type SearchParams } from "./search.ts";
import { symbols, type SymbolsParams } from "./symbols.ts";
import { refreshAction, status } from "./status.ts";

export interface RunOptions {
  onProgress?: (repo: string, progress: RefreshProgress) => void;
}

/**
 * Runs one action: validate params, reconcile first when `refresh` is true,
 * then answer from the committed snapshot.
 */
export async function runAction(
  workspace: Workspace,
  action: string,
  rawParams: unknown,
  options: RunOptions = {},
): Promise<Envelope> {
  const params = validateParams(action, rawParams);
  if (params.paths) {
    for (const glob of params.paths as string[]) {
      if (glob.startsWith("/") || glob.split("/").includes("..")) {
        throw new WireError(
          "PathRejected",
          `Path '${glob}' must be relative and may not contain '..'`,
        );
      }
    }
  }
  if (params.refresh === true) {
    for (const repo of workspace.select(params.repo as string | undefined)) {
      await workspace.refresh(
        repo,
        options.onProgress ? (p) => options.onProgress!(repo.name, p) : undefined,
      );
    }
  }
  const { refresh: _refresh, ...rest } = params;
  switch (action) {
    case "search":
      return search(workspace, rest as unknown as SearchParams);
    case "symbols":
      return symbols(workspace, rest as unknown as SymbolsParams);
    case "status":
      return status(workspace, rest);
    case "refresh":
      return await refreshAction(workspace, rest, {
        rebuild: false,
        onProgress: options.onProgress,
      });
    case "rebuild":
      return await refreshAction(workspace, rest, {
        rebuild: true,
        onProgress: options.onProgress,
      });
  }
  throw new WireError("MethodNotFound", `Unknown action '${action}'`);
}
