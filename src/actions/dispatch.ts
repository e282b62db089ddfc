import {
  isMethodName,
  type MethodName,
  type MethodParams,
  type MethodResult,
  validateParams,
} from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { type AccessContext, RequestScope } from "../workspace/scope.ts";
import { grep } from "./grep.ts";
import { navigate } from "./navigation.ts";
import { search } from "./search.ts";
import { symbols } from "./symbols.ts";
import { refreshAction, status } from "./status.ts";
import { map } from "./map.ts";
import { outline } from "./outline.ts";
import { context } from "./context.ts";
import { verify } from "./verify.ts";

export type { ActionContext } from "./context.ts";

/** How one action answers its validated params within its scope. */
type Handler<M extends MethodName> = (
  scope: RequestScope,
  params: MethodParams<M>,
) => Promise<MethodResult<M>> | MethodResult<M>;

/** The dispatch table: one typed handler per method descriptor. */
const HANDLERS: { [M in MethodName]: Handler<M> } = {
  search: (scope, params) => search(scope, params),
  grep: (scope, params) => grep(scope, params),
  symbols: (scope, params) => symbols(scope, params),
  definition: (scope, params) => navigate(scope, "definition", params),
  references: (scope, params) => navigate(scope, "references", params),
  callers: (scope, params) => navigate(scope, "callers", params),
  callees: (scope, params) => navigate(scope, "callees", params),
  impact: (scope, params) => navigate(scope, "impact", params),
  neighborhood: (scope, params) => navigate(scope, "neighborhood", params),
  map: (scope, params) => map(scope, params),
  outline: (scope, params) => outline(scope, params),
  context: (scope, params) => context(scope, params),
  verify: (scope, params) => verify(scope, params),
  status: (scope, params) => status(scope, params),
  refresh: (scope, params) =>
    refreshAction(scope, { rebuild: false, tokenBudget: params.token_budget }),
  rebuild: (scope, params) =>
    refreshAction(scope, { rebuild: true, tokenBudget: params.token_budget }),
};

/** One action request, validated, with its scope built: ready to refresh and answer. */
export interface ActionRequest<M extends MethodName = MethodName> {
  action: M;
  params: MethodParams<M>;
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
): ActionRequest {
  if (!isMethodName(action)) throw new WireError("MethodNotFound", `Unknown action '${action}'`);
  return prepareMethod(workspace, action, rawParams, access);
}

function prepareMethod<M extends MethodName>(
  workspace: Workspace,
  action: M,
  rawParams: unknown,
  access: AccessContext,
): ActionRequest<M> {
  const params = validateParams(action, rawParams);
  const common: { repo?: string; paths?: string[]; language?: string; refresh?: boolean } = params;
  const scope = RequestScope.build(workspace, common, access);
  return { action, params, scope, refresh: common.refresh === true };
}

/** Actions that resolve across project siblings: they refresh the siblings too. */
const RESOLVING: ReadonlySet<MethodName> = new Set([
  "definition",
  "references",
  "callers",
  "callees",
  "impact",
  "neighborhood",
]);

/**
 * Reconciles the repositories a prepared request addresses, when it asked for
 * `refresh` (and, for a resolving action, the project siblings it may answer from).
 */
export async function refreshFirst(request: ActionRequest): Promise<void> {
  if (!request.refresh) return;
  const { scope } = request;
  const repos = RESOLVING.has(request.action) ? scope.resolverRepositories() : scope.repositories;
  for (const repo of repos) {
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
export async function answerAction<M extends MethodName>(
  request: ActionRequest<M>,
): Promise<MethodResult<M>> {
  const handler: Handler<M> = HANDLERS[request.action];
  return await handler(request.scope, request.params);
}
