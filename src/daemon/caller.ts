/**
 * What a front door other than the socket (the CLI, the MCP server) needs to
 * answer as the daemon would: who is asking and the daemon that serves the same
 * workspace (else the grant to run embedded is `embeddedGrant` of `policy.ts`, which only an
 * embedded answer loads).
 */
import type { RepositoryState } from "../protocol/types.ts";
import type { WorkspaceConfig } from "../workspace/config.ts";
import { DaemonClient } from "./client.ts";
import { socketPath } from "./socket.ts";

/** Who is asking: `--agent`/`--token`, else `$SEXTANT_AGENT`/`$SEXTANT_TOKEN`. */
export interface Identity {
  agent?: string;
  token?: string;
}

/** The identity of flags, falling back to the environment. */
export function callerIdentity(flags: { agent?: string; token?: string }): Identity {
  return {
    agent: flags.agent ?? Deno.env.get("SEXTANT_AGENT"),
    token: flags.token ?? Deno.env.get("SEXTANT_TOKEN"),
  };
}

/** What the daemon's `initialize` answers (docs/protocol.md). */
export interface DaemonHello {
  agent: string;
  workspace: { root: string; config?: string | null; cache_dir?: string };
  repositories: RepositoryState[];
  /** The actions this agent may call. */
  actions: string[];
}

/** An initialized connection to the daemon serving a workspace. */
export interface AttachedDaemon {
  client: DaemonClient;
  hello: DaemonHello;
}

/**
 * Connects to the daemon on the socket and initializes with the identity.
 * Null when nothing answers or the daemon serves another workspace; throws
 * `RpcFailure` when the daemon refuses the identity.
 */
export async function attachDaemon(options: {
  config: WorkspaceConfig;
  socket?: string;
  identity: Identity;
}): Promise<AttachedDaemon | null> {
  const { config, identity } = options;
  let client: DaemonClient;
  try {
    client = await DaemonClient.connect(socketPath(options.socket, config.cacheDirectory));
  } catch {
    return null;
  }
  try {
    const hello = await client.request("initialize", {
      ...(identity.agent ? { agent: identity.agent } : {}),
      ...(identity.token ? { token: identity.token } : {}),
    }) as DaemonHello;
    // A restricted agent is told only the root; anything else the daemon says must agree too.
    const same = hello.workspace.root === config.root &&
      (!("config" in hello.workspace) || hello.workspace.config === config.source) &&
      (!("cache_dir" in hello.workspace) || hello.workspace.cache_dir === config.cacheDirectory);
    // A daemon of another workspace does not answer for this one.
    if (!same) {
      client.close();
      return null;
    }
    return { client, hello };
  } catch (error) {
    client.close();
    throw error;
  }
}
