/**
 * `sextant mcp` as a real child process, driven by the SDK's own `Client`
 * over `StdioClientTransport` (tests named "(real process)").
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PROJECT_ROOT, tempCache } from "./_helpers.ts";

export type { CallToolResult };

/** The command line of `sextant mcp` with the flags given. */
export function mcpCommandLine(args: string[]): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      join(PROJECT_ROOT, "src/main.ts"),
      "mcp",
      ...args,
    ],
  };
}

/** The environment of a test server: its own cache, no inherited identity or socket. */
export function mcpEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { SEXTANT_CACHE_DIR: tempCache(), NO_COLOR: "1" };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return { ...env, ...extra };
}

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr so far (one line per tool call). */
  stderr: () => string;
  /** Waits until stderr holds a line matching `pattern` (or fails after `ms`). */
  waitForLog: (pattern: RegExp, ms?: number) => Promise<string>;
  close: () => Promise<void>;
}

/** Starts `sextant mcp <args>` and connects the SDK client to it. */
export async function startMcp(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    ...mcpCommandLine(args),
    env: options.env ?? mcpEnvironment(),
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (log += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "sextant-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => log,
    waitForLog: async (pattern, ms = 30_000) => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const line = log.split("\n").find((candidate) => pattern.test(candidate));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no log line matches ${pattern}:\n${log}`);
    },
    close: () => client.close(),
  };
}

/** The text content of a tool result. */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}
