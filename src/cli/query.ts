import { parseArgs } from "node:util";
import { runAction } from "../actions/dispatch.ts";
import { WireError } from "../protocol/errors.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { Workspace } from "../workspace/workspace.ts";
import { formatHuman } from "./printer.ts";

const USAGE =
  `usage: sextant query [--workspace DIR] [--config FILE] [--json] <action> [argument] [flags]

actions: search <query>, symbols <name>, status, refresh, rebuild
flags:   --repo NAME  --paths GLOB (repeatable)  --language LANG  --limit N
         --kind KIND  --strategy hybrid|lexical|vector  --no-refresh
exit:    0 found, 1 nothing found, 2 error`;

const MAIN_ARGUMENT: Record<string, string> = { search: "query", symbols: "query" };

/** `sextant query …`: one action, printed for a person or as the JSON envelope. Returns the exit code. */
export async function queryCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        workspace: { type: "string" },
        config: { type: "string" },
        "cache-dir": { type: "string" },
        json: { type: "boolean", default: false },
        repo: { type: "string" },
        paths: { type: "string", multiple: true },
        language: { type: "string" },
        limit: { type: "string" },
        kind: { type: "string" },
        strategy: { type: "string" },
        "no-refresh": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    console.error(`sextant: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const [action, ...rest] = positionals;
  const params: Record<string, unknown> = {};
  const mainArgument = MAIN_ARGUMENT[action];
  if (mainArgument) {
    if (rest.length === 0) {
      console.error(`sextant: '${action}' needs an argument\n${USAGE}`);
      return 2;
    }
    params[mainArgument] = rest.join(" ");
  } else if (rest.length > 0) {
    console.error(`sextant: '${action}' takes no argument (got '${rest.join(" ")}')`);
    return 2;
  }
  if (values.repo) params.repo = values.repo;
  if (values.paths) params.paths = values.paths;
  if (values.language) params.language = values.language;
  if (values.kind) params.kind = values.kind;
  if (values.strategy) params.strategy = values.strategy;
  if (values.limit !== undefined) {
    const limit = Number(values.limit);
    if (!Number.isInteger(limit)) {
      console.error(`sextant: --limit must be a whole number`);
      return 2;
    }
    params.limit = limit;
  }
  if (action !== "refresh" && action !== "rebuild" && action !== "status") {
    params.refresh = !values["no-refresh"];
  }

  let workspace: Workspace | null = null;
  try {
    workspace = await Workspace.open({
      directory: values.workspace,
      configPath: values.config,
      cacheDirectory: values["cache-dir"],
    });
    const progress = Deno.stderr.isTerminal() && !values.json ? progressPrinter() : undefined;
    const envelope = await runAction(workspace, action, params, { onProgress: progress });
    if (progress) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[K"));
    if (values.json) {
      console.log(JSON.stringify(envelope, null, 2));
    } else {
      const text = formatHuman(envelope, workspace.repositories.length > 1);
      if (text) console.log(text);
    }
    if (action === "search" || action === "symbols") return envelope.results.length > 0 ? 0 : 1;
    return 0;
  } catch (error) {
    const message = error instanceof WireError || error instanceof SyntaxError
      ? error.message
      : `${(error as Error)?.message ?? error}`;
    if (values.json) {
      const code = error instanceof WireError ? error.code : -32603;
      console.log(JSON.stringify({ error: { code, message } }, null, 2));
    } else {
      console.error(`sextant: ${message}`);
    }
    return 2;
  } finally {
    workspace?.close();
  }
}

/** Progress on a terminal: files done / total, rate, ETA. */
function progressPrinter(): (repo: string, progress: RefreshProgress) => void {
  const encoder = new TextEncoder();
  let started = 0;
  let last = 0;
  return (repo, progress) => {
    const now = performance.now();
    if (progress.phase === "parse" && progress.done === 0) started = now;
    if (progress.phase !== "parse" || progress.total === 0) return;
    if (now - last < 100 && progress.done < progress.total) return;
    last = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const rate = progress.done / seconds;
    const eta = rate > 0 ? Math.ceil((progress.total - progress.done) / rate) : 0;
    Deno.stderr.writeSync(encoder.encode(
      `\r\x1b[Kindexing ${repo}: ${progress.done}/${progress.total} files, ${
        rate.toFixed(0)
      } files/s, ETA ${eta}s`,
    ));
  };
}
