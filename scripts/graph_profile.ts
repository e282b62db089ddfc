/**
 * Where the graph actions spend their time: each action timed alone, in this
 * process, over the bench's own definitions (`scanDefinitions` + `spread`, as
 * `deno task bench` picks them), with per call the hits, rows read and nodes
 * expanded, and the slowest calls listed by name.
 *
 *   deno run --unstable-worker-options --allow-all scripts/graph_profile.ts \
 *     --path /work/sympy [--keep] [--reuse WORKDIR] [--runs 100] [--actions impact,references]
 *     [--repeat N] [--json FILE]
 *
 * `--path` copies the tree into a new work directory and indexes it cold (as the
 * bench does); `--reuse WORKDIR` opens a work directory a previous `--keep` run left
 * (the copy is never re-indexed unless it changed). The originals are never written.
 */
import { parseArgs } from "node:util";
import { Session } from "node:inspector";
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import {
  type Definition,
  prepareTarget,
  scanDefinitions,
  spread,
  type Target,
} from "./_bench_corpus.ts";
import { paramsFor } from "./_bench_actions.ts";
import { percentile, threadCpuMs, withoutTimes } from "./_bench_stats.ts";

const SCAN_FILES = 400;
const WARMUP = 5;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    reuse: { type: "string" },
    keep: { type: "boolean" },
    runs: { type: "string" },
    actions: { type: "string" },
    repeat: { type: "string" },
    json: { type: "string" },
    top: { type: "string" },
    cpuprofile: { type: "string" },
    answers: { type: "string" },
    names: { type: "string" },
  },
});

const runs = Number(values.runs ?? 100);
const repeat = Number(values.repeat ?? 1);
const top = Number(values.top ?? 8);
const actions = (values.actions ?? "impact,references,callers,callees,neighborhood,context")
  .split(",");

let target: Target;
if (values.reuse) {
  const work = values.reuse;
  const names = [...Deno.readDirSync(work)].filter((e) => e.isDirectory && e.name !== "cache")
    .map((e) => e.name);
  if (names.length !== 1) throw new Error(`--reuse: expected one repository in ${work}`);
  const root = join(work, names[0]);
  target = {
    label: names[0],
    kind: "path",
    workDirectory: work,
    workspaceDirectory: root,
    cacheDirectory: join(work, "cache"),
    repositories: [{ name: names[0], source: root, root }],
    prepare_s: 0,
    cleanup: () => {},
  };
} else {
  if (!values.path) throw new Error("--path DIR or --reuse WORKDIR");
  target = await prepareTarget({ kind: "path", directories: [values.path] }, {
    seed: 1,
    keep: values.keep ?? false,
  });
}

const workspace = await Workspace.open({
  directory: target.workspaceDirectory,
  cacheDirectory: target.cacheDirectory,
});
const indexStarted = performance.now();
for (const repo of workspace.repositories) await workspace.refresh(repo);
console.error(`refresh: ${(performance.now() - indexStarted).toFixed(0)} ms`);

// The bench's own picks: definitions found by reading the files, spread over the tree.
const found = scanDefinitions(target, { maxFiles: SCAN_FILES });
let timed = spread(found, runs);
if (values.names) {
  const only = new Set(values.names.split(","));
  timed = timed.filter((d) => only.has(d.name));
}
const timedNames = new Set(timed.map((d) => d.name));
const warmup = spread(found.filter((d) => !timedNames.has(d.name)), WARMUP);

interface Sample {
  name: string;
  path: string;
  ms: number;
  cpu_ms: number;
  hits: number;
  truncated: boolean;
  rows_read: number;
  nodes_expanded: number;
  candidates: number;
}

const report: Record<string, unknown> = {};
// Every answer, one JSON line each (trace ids and timings left out), to diff two builds.
const answers: string[] | null = values.answers ? [] : null;
// A CPU profile of the timed calls (node:inspector), summarised by self and total time.
const session = values.cpuprofile ? new Session() : null;
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) =>
    session!.post(
      method,
      params ?? {},
      (error: unknown, result: unknown) => error ? reject(error) : resolve(result),
    )
  );
if (session) {
  session.connect();
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
}
for (const action of actions) {
  const call = (d: Definition) => runAction(workspace, action, paramsFor(action, d));
  for (const d of warmup) await call(d).catch(() => {});
  const samples: Sample[] = [];
  if (session) await post("Profiler.start");
  for (let r = 0; r < repeat; r++) {
    for (const d of timed) {
      const before = performance.now();
      const cpuBefore = threadCpuMs();
      try {
        const answer = await call(d);
        const cpu = threadCpuMs() - cpuBefore;
        if (answers) answers.push(JSON.stringify([action, d.name, withoutTimes(answer)]));
        const data = (answer.data ?? {}) as Record<string, unknown>;
        samples.push({
          name: d.name,
          path: d.path,
          ms: performance.now() - before,
          cpu_ms: cpu,
          hits: answer.results.length,
          truncated: answer.truncated,
          rows_read: Number(data.rows_read ?? 0),
          nodes_expanded: Number(data.nodes_expanded ?? 0),
          candidates: (answer as { candidates?: unknown[] }).candidates?.length ?? 0,
        });
      } catch (error) {
        console.error(`${action} ${d.name}: ${(error as Error).message}`);
      }
    }
  }
  if (session) {
    const { profile } = await post("Profiler.stop") as { profile: CpuProfile };
    Deno.writeTextFileSync(`${values.cpuprofile}.${action}.cpuprofile`, JSON.stringify(profile));
    summariseProfile(profile, 25);
  }
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const summary = {
    n: samples.length,
    p50: +percentile(ms, 50).toFixed(2),
    p95: +percentile(ms, 95).toFixed(2),
    p99: +percentile(ms, 99).toFixed(2),
    max: +ms[ms.length - 1].toFixed(2),
    total: +ms.reduce((a, b) => a + b, 0).toFixed(0),
  };
  const cpu = samples.map((s) => s.cpu_ms).sort((a, b) => a - b);
  Object.assign(summary, {
    cpu_p50: +percentile(cpu, 50).toFixed(2),
    cpu_p95: +percentile(cpu, 95).toFixed(2),
    cpu_p99: +percentile(cpu, 99).toFixed(2),
    cpu_total: +cpu.reduce((a, b) => a + b, 0).toFixed(0),
  });
  const slow = [...samples].sort((a, b) => b.ms - a.ms).slice(0, top);
  console.log(
    `${action}: n=${summary.n} p50=${summary.p50} p95=${summary.p95} p99=${summary.p99} max=${summary.max} total=${summary.total}ms | cpu ${
      JSON.stringify(summary).replace(/.*"cpu_p50"/, "p50")
    }`,
  );
  for (const s of slow) {
    console.log(
      `   ${s.ms.toFixed(1).padStart(8)} ms (cpu ${s.cpu_ms.toFixed(1)})  ${
        s.name.padEnd(28)
      } hits=${s.hits} trunc=${s.truncated} rows=${s.rows_read} nodes=${s.nodes_expanded} cand=${s.candidates}  ${s.path}`,
    );
  }
  report[action] = { summary, samples };
}
if (values.answers) Deno.writeTextFileSync(values.answers, answers!.join("\n") + "\n");
if (values.json) Deno.writeTextFileSync(values.json, JSON.stringify(report, null, 1));
workspace.close();
target.cleanup();
if (values.keep) console.error(`kept ${target.workDirectory}`);

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self and total (inclusive, each function once per stack) sample time by function. */
function summariseProfile(profile: CpuProfile, count: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const label = (id: number) => {
    const frame = byId.get(id)!.callFrame;
    const file = frame.url.split("/").slice(-2).join("/");
    return `${frame.functionName || "(anon)"} ${file}:${frame.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    all += dt;
    self.set(label(id), (self.get(label(id)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(at);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + dt);
    }
  });
  const show = (title: string, map: Map<string, number>) => {
    console.log(`  ${title} (of ${(all / 1000).toFixed(0)} ms sampled):`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(
        `    ${(us / 1000).toFixed(0).padStart(7)} ms ${
          (100 * us / all).toFixed(1).padStart(5)
        }%  ${name}`,
      );
    }
  };
  show("self", self);
  show("total", total);
}
