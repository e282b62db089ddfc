/**
 * A query Worker: answers actions from its own read-only connections, so a
 * slow query occupies this Worker and never the daemon's main thread. The
 * main thread has already checked the request; the grant is applied again.
 */
import { runAction } from "../actions/dispatch.ts";
import { WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { AccessPolicy } from "./policy.ts";

/** One action for the Worker; `epoch` changes when the daemon reloads its workspace. */
export interface QueryJob {
  id: number;
  epoch: number;
  workspace: WorkspaceOptions;
  agent: string;
  action: string;
  params: Record<string, unknown>;
}

export type QueryReply =
  | { id: number; envelope: Envelope }
  | { id: number; wire: { name: string; message: string; data?: unknown } }
  | { id: number; internal: string };

/** What the Worker posts: one reply per job, and `ready` once every module it imports is loaded. */
export type QueryWorkerMessage = QueryReply | { ready: true };

let state: { epoch: number; workspace: Workspace; policy: AccessPolicy } | null = null;

async function open(job: QueryJob) {
  if (state?.epoch === job.epoch) return state;
  state?.workspace.close();
  state = null;
  const workspace = await Workspace.open(job.workspace);
  const policy = AccessPolicy.fromConfig(workspace.config.raw, workspace.config.source ?? "");
  state = { epoch: job.epoch, workspace, policy };
  return state;
}

async function answer(job: QueryJob): Promise<Envelope> {
  const { workspace, policy } = await open(job);
  const grant = policy.regrant(job.agent);
  if (!grant) throw new WireError("Unauthorized", "Unknown agent or wrong token");
  const admitted = grant.admit(workspace, { action: job.action, params: job.params });
  // Params cross from the daemon's thread as plain data: they are checked again here.
  const envelope = await runAction(
    admitted.workspace,
    job.action,
    admitted.params,
    admitted.context,
  );
  return grant.filter(envelope, grant.visibleRepositories(workspace));
}

self.onmessage = async (event: MessageEvent<QueryJob>) => {
  const job = event.data;
  let reply: QueryReply;
  try {
    reply = { id: job.id, envelope: await answer(job) };
  } catch (error) {
    reply = error instanceof WireError
      ? { id: job.id, wire: { name: error.name, message: error.message, data: error.data } }
      : { id: job.id, internal: (error as Error)?.stack ?? `${error}` };
  }
  (self as unknown as Worker).postMessage(reply);
};

// Every static import has loaded by the time this line runs: the daemon may now hand out jobs.
(self as unknown as Worker).postMessage({ ready: true } satisfies QueryWorkerMessage);
