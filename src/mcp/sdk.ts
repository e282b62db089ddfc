/**
 * The parts of `@modelcontextprotocol/sdk` the server uses, imported in one
 * place. The package's `./*` export maps types to `./dist/esm/*.d.ts`, so a
 * `.js` subpath finds no types under Deno and would type as `any`; each such
 * import takes its types from the extensionless subpath instead.
 */
export { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode as McpErrorCode,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
