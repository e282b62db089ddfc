import { validateParams } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { ActionContext } from "./context.ts";
import { grep, type GrepParams } from "./grep.ts";
import { navigate, type NavigationAction, type NavigationParams } from "./navigation.ts";
import { search, type SearchParams } from "./search.ts";
import { symbols, type SymbolsParams } from "./symbols.ts";
import { refreshAction, status } from "./status.ts";

export type { ActionContext } from "./context.ts";

/**
 * Runs one action: validate params, reconcile first when `refresh` is true,
 * then answer from the committed snapshot.
 */
export async function runAction(
  workspace: Workspace,
  action: string,
  rawParams: unknown,
  context: ActionContext = {},
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
        context.onProgress ? (p) => context.onProgress!(repo.name, p) : undefined,
      );
    }
  }
  const { refresh: _refresh, ...rest } = params;
  switch (action) {
    case "search":
      return search(workspace, rest as unknown as SearchParams, context);
    case "grep":
      return await grep(workspace, rest as unknown as GrepParams, context);
    case "symbols":
      return symbols(workspace, rest as unknown as SymbolsParams, context);
    case "definition":
    case "references":
    case "callers":
    case "callees":
    case "impact":
    case "neighborhood":
      return await navigate(
        workspace,
        action as NavigationAction,
        rest as unknown as NavigationParams,
        context,
      );
    case "status":
      return status(workspace, rest, context);
    case "refresh":
      return await refreshAction(workspace, rest, { rebuild: false, context });
    case "rebuild":
      return await refreshAction(workspace, rest, { rebuild: true, context });
  }
  throw new WireError("MethodNotFound", `Unknown action '${action}'`);
}
