/** Entry point: `sextant query|daemon|mcp …` (also what `deno task compile` builds). */
import { mainUsage } from "./cli/help.ts";
import { METHODS } from "./protocol/methods.ts";

const ACTIONS = new Set(Object.keys(METHODS));

/**
 * Each command loads its own modules only (a `query` process never loads the daemon's or the
 * MCP server's, whose SDK alone took ~0.19 s to load).
 */
async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "query") return await (await import("./cli/query.ts")).queryCommand(rest);
  if (command && ACTIONS.has(command)) {
    return await (await import("./cli/query.ts")).queryCommand(args);
  }
  if (command === "daemon") return await (await import("./daemon/command.ts")).daemonCommand(rest);
  if (command === "mcp") return await (await import("./mcp/command.ts")).mcpCommand(rest);
  (command === "--help" || command === "-h" ? console.log : console.error)(mainUsage());
  return command === "--help" || command === "-h" ? 0 : 2;
}

// A closed pipe (`sextant search x | head`) is a normal end, not an error.
globalThis.addEventListener("unhandledrejection", (event) => {
  if (event.reason instanceof Deno.errors.BrokenPipe) {
    event.preventDefault();
    Deno.exit(0);
  }
});

Deno.exit(await main(Deno.args));
