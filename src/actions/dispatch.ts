import { validateParams } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { type AccessContext, RequestScope, type ScopeParams } from "../workspace/scope.ts";
import { grep, type GrepParams } from "./grep.ts";
import { navigate, type NavigationAction, type NavigationParams } from "./navigation.ts";
import { search, type SearchParams } from "./search.ts";
import { symbols, type SymbolsParams } from "./symbols.ts";
import { refreshAction, status } from "./status.ts";

export type { ActionContext } from "./context.ts";

/** One action request, validated, with its scope built: ready to refresh and answer. */
export interface PreparedAction {
  action: string;
  /** The validated params, without `refresh`. */
  params: Record<string, unknown>;
  scope: RequestScope;
  /** Reconcile the addressed repositories before answering. */
  refresh: boolean;
}

/**
 * Validates an action's params against its descriptor and builds its scope
 * (the one place either happens); throws `WireError`.
 */
export function prepareAction(
  workspace: Workspace,
  action: string,
  rawParams: unknown,
  access: AccessContext = {},
): PreparedAction {
  const { refresh, ...params } = validateParams(action, rawParams);
  const scope = RequestScope.build(workspace, params as ScopeParams, access);
  return { action, params, scope, refresh: refresh === true };
}

/** Reconciles the repositories a prepared request addresses, when it asked for `refresh`. */
export async function refreshFirst(request: PreparedAction): Promise<void> {
  if (!request.refresh) return;
  const { scope } = request;
  for (const repo of scope.repositories) {
    scope.throwIfCancelled();
    await scope.workspace.refresh(repo, scope.progressOf(repo));
  }
}

/**
 * Runs one action: validate params, reconcile first when `refresh` is true,
 * then answer from the committed snapshot.
 */
export async function runAction(
  workspace: Workspace,
  action: string,
  rawParams: unknown,
  context: AccessContext = {},
): Promise<Envelope> {
  const request = prepareAction(workspace, action, rawParams, context);
  await refreshFirst(request);
  return await answerAction(request);
}

/** Answers a prepared request from the committed snapshot. */
export async function answerAction(request: PreparedAction): Promise<Envelope> {
  const { action, params: rest, scope } = request;
  switch (action) {
    case "search":
      return search(scope, rest as unknown as SearchParams);
    case "grep":
      return await grep(scope, rest as unknown as GrepParams);
    case "symbols":
      return symbols(scope, rest as unknown as SymbolsParams);
    case "definition":
    case "references":
    case "callers":
    case "callees":
    case "impact":
    case "neighborhood":
      return await navigate(
        scope,
        action as NavigationAction,
        rest as unknown as NavigationParams,
      );
    case "status":
      return status(scope, rest as { token_budget?: number });
    case "refresh":
      return await refreshAction(scope, {
        rebuild: false,
        tokenBudget: rest.token_budget as number | undefined,
      });
    case "rebuild":
      return await refreshAction(scope, {
        rebuild: true,
        tokenBudget: rest.token_budget as number | undefined,
      });
  }
  throw new WireError("MethodNotFound", `Unknown action '${action}'`);
}
