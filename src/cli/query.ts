/**
 * `sextant query`: parses the command line into one action's params (flags
 * from the method descriptors, `flags.ts`), asks the daemon that serves this
 * workspace or answers in this process under the same policy, and prints the
 * envelope for a person or as JSON.
 */
import { parseArgs } from "node:util";
import { attachDaemon, callerIdentity, type Identity } from "../daemon/caller.ts";
import { RpcFailure } from "../daemon/client.ts";
import { WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { loadWorkspaceConfig, type WorkspaceConfigOptions } from "../workspace/config.ts";
import { METHODS } from "../protocol/methods.ts";
import { actionFlags, actionParams, queryParseOptions, readsStdin, UsageError } from "./flags.ts";
import { QUERY_SYNOPSIS, queryUsage } from "./help.ts";
import { formatHuman } from "./printer.ts";

/** `sextant query …`: one action, printed for a person or as the JSON envelope. Returns the exit code. */
export async function queryCommand(args: string[]): Promise<number> {
  const flags = actionFlags();
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: queryParseOptions(flags) });
  } catch (error) {
    console.error(`sextant: ${(error as Error).message}\n${QUERY_SYNOPSIS}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? console.log : console.error)(queryUsage(flags));
    return values.help ? 0 : 2;
  }
  const [action, ...rest] = positionals;
  let params: Record<string, unknown>;
  try {
    // A JSON argument given as `-` (verify's citations) is read from standard input.
    const stdin = readsStdin(action, rest, values) ? await readStdin() : undefined;
    params = actionParams({ action, rest, values, flags, stdin });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`sextant: ${error.message}\n${QUERY_SYNOPSIS}`);
    return 2;
  }
  const option = (name: string) => values[name] as string | undefined;
  return await answer({
    action,
    params,
    json: values.json === true,
    embedded: values.embedded === true,
    socket: option("socket"),
    workspaceOptions: {
      directory: option("workspace"),
      configPath: option("config"),
      cacheDirectory: option("cache-dir"),
    },
    identity: callerIdentity({ agent: option("agent"), token: option("token") }),
  });
}

/** Everything on standard input, as text. */
async function readStdin(): Promise<string> {
  return await new Response(Deno.stdin.readable).text();
}

/** Asks the daemon (or this process) and prints the answer; returns the exit code. */
async function answer(options: {
  action: string;
  params: Record<string, unknown>;
  json: boolean;
  embedded: boolean;
  socket?: string;
  workspaceOptions: WorkspaceConfigOptions;
  identity: Identity;
}): Promise<number> {
  const { action, params, json, workspaceOptions, identity } = options;
  const progress = Deno.stderr.isTerminal() && !json ? progressPrinter() : undefined;
  try {
    const request = { workspaceOptions, identity, action, params, progress };
    const reply = (!options.embedded && await viaDaemon({ ...request, socket: options.socket })) ||
      await embedded(request);
    if (progress) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[K"));
    const { envelope, multiRepo } = reply;
    if (json) {
      console.log(JSON.stringify(envelope, null, 2));
    } else {
      const text = formatHuman(envelope, multiRepo);
      if (text) console.log(text);
    }
    // verify: 0 when every citation holds, 1 when one does not.
    if (action === "verify") {
      const data = envelope.data as { ok?: number; total?: number } | undefined;
      return data && data.ok === data.total ? 0 : 1;
    }
    // An action that looks something up found it or not; the others always answer.
    if (METHODS[action]?.argument) {
      return envelope.results.length > 0 || (envelope.candidates?.length ?? 0) > 0 ? 0 : 1;
    }
    return 0;
  } catch (error) {
    printFailure(error, json);
    return 2;
  }
}

function printFailure(error: unknown, json: boolean): void {
  const known = error instanceof WireError || error instanceof SyntaxError ||
    error instanceof RpcFailure;
  const message = known ? error.message : `${(error as Error)?.message ?? error}`;
  if (json) {
    const code = error instanceof WireError || error instanceof RpcFailure ? error.code : -32603;
    console.log(JSON.stringify({ error: { code, message } }, null, 2));
  } else {
    console.error(`sextant: ${message}`);
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
  workspaceOptions: WorkspaceConfigOptions;
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
  workspaceOptions: WorkspaceConfigOptions;
  identity: Identity;
  action: string;
  params: Record<string, unknown>;
  progress?: (repo: string, progress: RefreshProgress) => void;
}): Promise<Answer> {
  // The engine is loaded only here: a query the daemon answers never needs it (its modules took
  // ~0.2 s of every `query` process's start).
  const [{ Workspace }, { openLspBackend }, { executeAction }, { embeddedGrant }] = await Promise
    .all([
      import("../workspace/workspace.ts"),
      import("../actions/lsp_route.ts"),
      import("../daemon/execute.ts"),
      import("../daemon/policy.ts"),
    ]);
  const workspace = await Workspace.open(options.workspaceOptions);
  // A one-shot process waits for a starting server (up to its request timeout).
  const lsp = await openLspBackend(workspace, { wait: "request_timeout" });
  try {
    // The local user owns the files: without --agent the CLI has full access.
    const grant = embeddedGrant(workspace, options.identity);
    const { envelope } = await executeAction({
      workspace,
      grant,
      action: options.action,
      params: options.params,
      onProgress: options.progress,
      lsp,
    });
    const visible = grant.visibleRepositories(workspace);
    return { envelope, multiRepo: visible.size > 1 };
  } finally {
    await lsp?.dispose();
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
