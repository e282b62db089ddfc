/**
 * Language servers as exact, optional backends: configuration (`config.ts`), safe launch
 * (`safety.ts`, `executable.ts`), one process and connection (`client.ts`), per (repository,
 * server) health (`manager.ts`), and routed requests mapped onto the committed snapshot
 * (`router.ts`, `locations.ts`). docs/lsp.md describes them for users.
 */
export {
  type LspConfig,
  type LspServerConfig,
  parseLspConfig,
  serverForLanguage,
} from "./config.ts";
export {
  type Fallback,
  type FallbackReason,
  LspManager,
  type LspManagerOptions,
  type ServerState,
  type ServerStatus,
} from "./manager.ts";
export {
  type CommittedSnapshot,
  type IndexedDefinition,
  type LspAnswer,
  LspRouter,
  type RouteRequest,
  type RouteResult,
  type SourcePosition,
} from "./router.ts";
export { type LaunchPlan, launchPlan } from "./safety.ts";
