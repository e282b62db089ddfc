import type { Envelope } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { ActionContext } from "./context.ts";

export interface GrepParams {
  pattern: string;
  repo?: string;
  paths?: string[];
  language?: string;
  limit?: number;
  cursor?: string;
  token_budget?: number;
  timeout_ms?: number;
}

/** Structural grep (SPEC §10). Not built yet: answered as an unknown method. */
export function grep(
  _workspace: Workspace,
  _params: GrepParams,
  _context: ActionContext,
): Promise<Envelope> {
  return Promise.reject(new WireError("MethodNotFound", "Action 'grep' is not available yet"));
}
