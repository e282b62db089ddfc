/**
 * The daemon's query Worker, counting the vector indexes each job hands it. A job whose
 * action is `handovers` is answered here, after a pause (so that two sent at once reach two
 * Workers): the number of indexes every earlier job carried. A `sleep` job is answered after
 * `params.ms`. A `collect` job is answered with `collecting` and then holds the thread for
 * `params.ms` before it says `collected`, as the real Worker's garbage collection does. `sleep`
 * and `collect` answers name the Worker (`worker`). A `received` job is answered with the
 * actions of every job this Worker was sent before it, and `jobs` with each one's action, agent
 * and outcome (`answer`, or the error's name); so is a `search` for `jobs …` (asked through a
 * daemon, which routes only real actions). Every other job is the real Worker's.
 */
import "../src/daemon/query_worker.ts";
import { envelope } from "../src/actions/envelope.ts";

const answer = self.onmessage as (event: MessageEvent) => unknown;
const carried: number[] = [];
const received: string[] = [];
const jobs: { id: number; action: string; agent: string | null; outcome: string | null }[] = [];
const worker = crypto.randomUUID();
// Each reply's outcome, recorded as it leaves.
const post = (self as unknown as Worker).postMessage.bind(self);
(self as unknown as { postMessage: (message: unknown) => void }).postMessage = (message) => {
  const reply = message as { id?: number; envelope?: unknown; wire?: { name: string } };
  const job = jobs.find((each) => each.id === reply.id);
  if (job && job.outcome === null) {
    job.outcome = reply.envelope ? "answer" : reply.wire?.name ?? "internal";
  }
  post(message);
};
self.onmessage = async (event: MessageEvent) => {
  const job = event.data;
  if (job?.action === "jobs" || /^jobs\b/.test(job?.params?.query ?? "")) {
    (self as unknown as Worker).postMessage({
      id: job.id,
      envelope: envelope({
        action: "search",
        results: [],
        provenance: { backend: "test", confidence: "weak" },
        repositories: [],
        data: { jobs: jobs.map(({ action, agent, outcome }) => ({ action, agent, outcome })) },
      }),
    });
    return;
  }
  if (job && !("type" in job)) {
    jobs.push({ id: job.id, action: job.action, agent: job.agent, outcome: null });
  }
  if (job?.action === "received") {
    (self as unknown as Worker).postMessage({
      id: job.id,
      envelope: { data: { received: [...received], worker } },
    });
    return;
  }
  if (job && !("type" in job)) received.push(job.action);
  if (job?.action === "handovers") {
    await new Promise((resolve) => setTimeout(resolve, 300));
    (self as unknown as Worker).postMessage({
      id: job.id,
      envelope: { data: { carried: [...carried] } },
    });
    return;
  }
  if (job?.action === "sleep") {
    await new Promise((resolve) => setTimeout(resolve, job.params.ms));
    (self as unknown as Worker).postMessage({
      id: job.id,
      envelope: { data: { slept: true, worker } },
    });
    return;
  }
  if (job?.action === "collect") {
    (self as unknown as Worker).postMessage({
      id: job.id,
      envelope: { data: { worker } },
      collecting: true,
    });
    const until = performance.now() + job.params.ms;
    while (performance.now() < until) { /* the thread is held, as by a full collection */ }
    (self as unknown as Worker).postMessage({ collected: true });
    return;
  }
  if (job && !("type" in job)) carried.push(job.vectors?.length ?? 0);
  return answer(event);
};
