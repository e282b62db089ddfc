import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { ActionContext } from "./context.ts";

export type NavigationAction =
  | "definition"
  | "references"
  | "callers"
  | "callees"
  | "impact"
  | "neighborhood";

export interface NavigationParams {
  symbol?: string;
  path?: string;
  line?: number;
  column?: number;
  diff?: boolean;
  depth?: number;
  format?: "list" | "mermaid";
  repo?: string;
  paths?: string[];
  language?: string;
  limit?: number;
  cursor?: string;
  token_budget?: number;
}

/** Navigation over the relation graph (SPEC §9). Not built yet: answered as an unknown method. */
export function navigate(
  _workspace: Workspace,
  action: NavigationAction,
  _params: NavigationParams,
  _context: ActionContext,
): Promise<Envelope> {
  return Promise.reject(
    new WireError("MethodNotFound", `Action '${action}' is not available yet`),
  );
}
