/** `sextant mcp`: the MCP server over stdio until the client closes stdin. */
import process from "node:process";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { callerIdentity } from "../daemon/caller.ts";
import { RpcFailure } from "../daemon/client.ts";
import { type LogFormat, TraceLog } from "../daemon/observe.ts";
import { WireError } from "../protocol/errors.ts";
import { Backends } from "./backend.ts";
import { StdioServerTransport } from "./sdk.ts";
import { answerMalformed, createMcpServer } from "./server.ts";

const USAGE =
  `usage: sextant mcp [--workspace DIR] [--config FILE] [--cache-dir DIR] [--agent NAME --token T]
                   [--socket PATH] [--embedded] [--log-format text|json] [--quiet]

An MCP server on stdin/stdout: one tool per action. It forwards to the daemon
serving the same workspace when one listens on the socket, else runs embedded.
identity: --agent/--token, else $SEXTANT_AGENT/$SEXTANT_TOKEN (sextant.yml agents)
paths:    relative to $INIT_CWD when set (the directory 'deno task --cwd' started in),
          else to the current directory; the workspace defaults to that directory
logs:     one line per tool call on stderr (--quiet: none)
docs:     docs/mcp.md`;

/** Runs the server; returns the exit code once the client has gone. */
export async function mcpCommand(args: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        workspace: { type: "string" },
        config: { type: "string" },
        "cache-dir": { type: "string" },
        agent: { type: "string" },
        token: { type: "string" },
        socket: { type: "string" },
        embedded: { type: "boolean", default: false },
        "log-format": { type: "string", default: "text" },
        quiet: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    console.error(`sextant: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    // stdout belongs to the protocol only once the server runs.
    console.log(USAGE);
    return 0;
  }
  const format = values["log-format"];
  if (format !== "text" && format !== "json") {
    console.error(`sextant: --log-format must be text or json\n${USAGE}`);
    return 2;
  }
  const log = new TraceLog({ format: format as LogFormat, quiet: values.quiet });
  // `deno task --cwd <clone> mcp` runs in the clone; the user's directory is INIT_CWD.
  const base = Deno.env.get("INIT_CWD") || Deno.cwd();
  const at = (path: string | undefined) => (path === undefined ? undefined : resolve(base, path));
  let backends: Backends;
  try {
    backends = await Backends.start({
      workspace: {
        directory: at(values.workspace) ?? base,
        configPath: at(values.config),
        cacheDirectory: at(values["cache-dir"]),
      },
      socket: at(values.socket),
      identity: callerIdentity(values),
      embedded: values.embedded,
      log,
    });
  } catch (error) {
    if (
      error instanceof WireError || error instanceof RpcFailure || error instanceof SyntaxError
    ) {
      console.error(`sextant: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const server = createMcpServer(backends, log);
  server.onerror = (error) => log.event("mcp.error", { error: error.message.split("\n")[0] });
  const transport = new StdioServerTransport();
  answerMalformed(transport);
  const closed = new Promise<void>((done) => (server.onclose = done));
  await server.connect(transport);
  const first = await backends.current();
  log.event("mcp.start", {
    pid: Deno.pid,
    mode: first.mode,
    workspace: at(values.workspace) ?? base,
    tools: first.actions.length,
  });
  const stop = () => void server.close().catch(() => {});
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await closed;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  backends.close();
  log.event("mcp.stop", {});
  return 0;
}
