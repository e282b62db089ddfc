/** Entry point: `sextant query|daemon|mcp …` (also what `deno task compile` builds). */
import { queryCommand } from "./cli/query.ts";
import { mainUsage } from "./cli/help.ts";
import { daemonCommand } from "./daemon/command.ts";
import { mcpCommand } from "./mcp/command.ts";
import { METHODS } from "./protocol/methods.ts";

const ACTIONS = new Set(Object.keys(METHODS));

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "query") return await queryCommand(rest);
  if (command && ACTIONS.has(command)) return await queryCommand(args);
  if (command === "daemon") return await daemonCommand(rest);
  if (command === "mcp") return await mcpCommand(rest);
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
