/** `sextant daemon`: runs the daemon in the foreground until SIGINT/SIGTERM. */
import { parseArgs } from "node:util";
import { WireError } from "../protocol/errors.ts";
import { loadWorkspaceConfig } from "../workspace/config.ts";
import { type LogFormat, TraceLog } from "./observe.ts";
import { Daemon, DEFAULT_IDLE_MS } from "./server.ts";
import { socketPath, SocketUnavailable } from "./socket.ts";

const USAGE =
  `usage: sextant daemon [--socket PATH] [--workspace DIR] [--config FILE] [--cache-dir DIR]
                      [--log-format text|json] [--quiet] [--query-workers N]
                      [--idle-timeout SECONDS]
socket:  --socket, else $SEXTANT_SOCKET, else $XDG_RUNTIME_DIR/sextant/sextant.sock,
         else <cache dir>/run/sextant.sock
workers: --query-workers N answers actions in up to N Workers, short ones first:
         one runs always, the others only while long jobs hold it
         or a refresh runs
         (default 2; 0: on the main thread)
idle:    --idle-timeout S closes a connection with no whole frame and nothing running
         for S seconds (default 300)
signals: SIGHUP reloads sextant.yml; SIGINT/SIGTERM stop (socket removed)`;

/** Runs the daemon; returns the exit code. */
export async function daemonCommand(args: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        socket: { type: "string" },
        workspace: { type: "string" },
        config: { type: "string" },
        "cache-dir": { type: "string" },
        "log-format": { type: "string", default: "text" },
        quiet: { type: "boolean", default: false },
        "query-workers": { type: "string", default: "2" },
        "idle-timeout": { type: "string", default: String(DEFAULT_IDLE_MS / 1000) },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    console.error(`sextant: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const format = values["log-format"];
  if (format !== "text" && format !== "json") {
    console.error(`sextant: --log-format must be text or json\n${USAGE}`);
    return 2;
  }
  const queryWorkers = Number(values["query-workers"]);
  if (!Number.isInteger(queryWorkers) || queryWorkers < 0 || queryWorkers > 64) {
    console.error(`sextant: --query-workers must be a whole number from 0 to 64\n${USAGE}`);
    return 2;
  }
  const idleSeconds = Number(values["idle-timeout"]);
  if (!Number.isFinite(idleSeconds) || idleSeconds <= 0 || idleSeconds > 86_400) {
    console.error(
      `sextant: --idle-timeout must be a positive number of seconds (at most 86400)\n${USAGE}`,
    );
    return 2;
  }
  const log = new TraceLog({ format: format as LogFormat, quiet: values.quiet });
  const workspaceOptions = {
    directory: values.workspace,
    configPath: values.config,
    cacheDirectory: values["cache-dir"],
  };
  let daemon: Daemon;
  try {
    const config = await loadWorkspaceConfig(workspaceOptions);
    const socket = socketPath(values.socket, config.cacheDirectory);
    daemon = await Daemon.start({
      socket,
      workspace: workspaceOptions,
      log,
      queryWorkers,
      idleMs: Math.round(idleSeconds * 1000),
    });
  } catch (error) {
    if (
      error instanceof SocketUnavailable || error instanceof WireError ||
      error instanceof SyntaxError
    ) {
      console.error(`sextant: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const stop = (signal: string) => () => daemon.shutdown(signal);
  const onInt = stop("SIGINT");
  const onTerm = stop("SIGTERM");
  const onHup = () => {
    daemon.reload().catch((error) =>
      log.event("daemon.reload_failed", { error: (error as Error).message })
    );
  };
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);
  Deno.addSignalListener("SIGHUP", onHup);
  await daemon.serve();
  await daemon.shutdown("listener closed");
  Deno.removeSignalListener("SIGINT", onInt);
  Deno.removeSignalListener("SIGTERM", onTerm);
  Deno.removeSignalListener("SIGHUP", onHup);
  return 0;
}
