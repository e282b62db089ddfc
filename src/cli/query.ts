import { parseArgs } from "node:util";
import { attachDaemon, callerIdentity, embeddedGrant, type Identity } from "../daemon/caller.ts";
import { RpcFailure } from "../daemon/client.ts";
import { executeAction } from "../daemon/execute.ts";
import { WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { loadWorkspaceConfig, Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { formatHuman } from "./printer.ts";

const USAGE =
  `usage: sextant query [--workspace DIR] [--config FILE] [--json] <action> [argument] [flags]

actions: search <query>, grep <pattern>, symbols <name>,
         definition|references|callers|callees|neighborhood|impact [symbol],
         status, refresh, rebuild
flags:   --repo NAME  --paths GLOB (repeatable)  --language LANG  --limit N
         --kind KIND  --strategy hybrid|lexical|vector  --no-refresh
         --cursor C  --token-budget N  --timeout-ms N (grep)
         --path P --line N --column N (a use)  --depth N  --format list|mermaid  --diff (impact)
daemon:  --socket PATH  --agent NAME (or $SEXTANT_AGENT)  --token T (or $SEXTANT_TOKEN)
         --embedded (never use a daemon)
exit:    0 found, 1 nothing found, 2 error`;

/** The positional argument of each action; navigation may name its subject by flags instead. */
const MAIN_ARGUMENT: Record<string, { param: string; optional?: boolean }> = {
  search: { param: "query" },
  symbols: { param: "query" },
  grep: { param: "pattern" },
  definition: { param: "symbol", optional: true },
  references: { param: "symbol", optional: true },
  callers: { param: "symbol", optional: true },
  callees: { param: "symbol", optional: true },
  neighborhood: { param: "symbol", optional: true },
  impact: { param: "symbol", optional: true },
};
/** Integer flags and the param each becomes. */
const INTEGER_FLAGS: Record<string, string> = {
  limit: "limit",
  "token-budget": "token_budget",
  "timeout-ms": "timeout_ms",
  line: "line",
  column: "column",
  depth: "depth",
};

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
        cursor: { type: "string" },
        "token-budget": { type: "string" },
        "timeout-ms": { type: "string" },
        path: { type: "string" },
        line: { type: "string" },
        column: { type: "string" },
        depth: { type: "string" },
        format: { type: "string" },
        diff: { type: "boolean", default: false },
        "no-refresh": { type: "boolean", default: false },
        socket: { type: "string" },
        agent: { type: "string" },
        token: { type: "string" },
        embedded: { type: "boolean", default: false },
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
    if (rest.length === 0 && !mainArgument.optional) {
      console.error(`sextant: '${action}' needs an argument\n${USAGE}`);
      return 2;
    }
    if (rest.length > 0) params[mainArgument.param] = rest.join(" ");
  } else if (rest.length > 0) {
    console.error(`sextant: '${action}' takes no argument (got '${rest.join(" ")}')`);
    return 2;
  }
  if (values.repo) params.repo = values.repo;
  if (values.paths) params.paths = values.paths;
  if (values.language) params.language = values.language;
  if (values.kind) params.kind = values.kind;
  if (values.strategy) params.strategy = values.strategy;
  if (values.cursor) params.cursor = values.cursor;
  if (values.path) params.path = values.path;
  if (values.format) params.format = values.format;
  if (values.diff) params.diff = true;
  for (const [flag, param] of Object.entries(INTEGER_FLAGS)) {
    const raw = (values as Record<string, unknown>)[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isInteger(value)) {
      console.error(`sextant: --${flag} must be a whole number`);
      return 2;
    }
    params[param] = value;
  }
  if (action !== "refresh" && action !== "rebuild" && action !== "status") {
    params.refresh = !values["no-refresh"];
  }

  const workspaceOptions: WorkspaceOptions = {
    directory: values.workspace,
    configPath: values.config,
    cacheDirectory: values["cache-dir"],
  };
  const identity = callerIdentity(values);
  const progress = Deno.stderr.isTerminal() && !values.json ? progressPrinter() : undefined;
  try {
    const answer = (!values.embedded &&
      await viaDaemon({
        workspaceOptions,
        socket: values.socket,
        identity,
        action,
        params,
        progress,
      })) ||
      await embedded({ workspaceOptions, identity, action, params, progress });
    if (progress) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[K"));
    const { envelope, multiRepo } = answer;
    if (values.json) {
      console.log(JSON.stringify(envelope, null, 2));
    } else {
      const text = formatHuman(envelope, multiRepo);
      if (text) console.log(text);
    }
    if (MAIN_ARGUMENT[action]) {
      return envelope.results.length > 0 || (envelope.candidates?.length ?? 0) > 0 ? 0 : 1;
    }
    return 0;
  } catch (error) {
    const known = error instanceof WireError || error instanceof SyntaxError ||
      error instanceof RpcFailure;
    const message = known ? error.message : `${(error as Error)?.message ?? error}`;
    if (values.json) {
      const code = error instanceof WireError || error instanceof RpcFailure ? error.code : -32603;
      console.log(JSON.stringify({ error: { code, message } }, null, 2));
    } else {
      console.error(`sextant: ${message}`);
    }
    return 2;
  }
}

interface Answer {
  envelope: Envelope;
  multiRepo: boolean;
}

/**
 * Asks the daemon listening on the socket, when one answers and serves this
 * same workspace; null otherwise (the caller then runs embedded).
 */
async function viaDaemon(options: {
  workspaceOptions: WorkspaceOptions;
  socket?: string;
  identity: Identity;
  action: string;
  params: Record<string, unknown>;
  progress?: (repo: string, progress: RefreshProgress) => void;
}): Promise<Answer | null> {
  const config = await loadWorkspaceConfig(options.workspaceOptions);
  const attached = await attachDaemon({
    config,
    socket: options.socket,
    identity: options.identity,
  });
  if (!attached) return null;
  const { client, hello } = attached;
  try {
    const progress = options.progress;
    const envelope = await client.request(options.action, options.params, {
      onProgress: progress
        ? (p) => progress(p.repo as string, p as unknown as RefreshProgress)
        : undefined,
    }) as Envelope;
    return { envelope, multiRepo: hello.repositories.length > 1 };
  } finally {
    client.close();
  }
}

/** Runs the action in this process, under the same policy the daemon would apply. */
async function embedded(options: {
  workspaceOptions: WorkspaceOptions;
  identity: Identity;
  action: string;
  params: Record<string, unknown>;
  progress?: (repo: string, progress: RefreshProgress) => void;
}): Promise<Answer> {
  const workspace = await Workspace.open(options.workspaceOptions);
  try {
    // The local user owns the files: without --agent the CLI has full access.
    const grant = embeddedGrant(workspace, options.identity);
    const { envelope } = await executeAction({
      workspace,
      grant,
      action: options.action,
      params: options.params,
      onProgress: options.progress,
    });
    const visible = grant.visibleRepositories(workspace);
    return { envelope, multiRepo: visible.size > 1 };
  } finally {
    workspace.close();
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
