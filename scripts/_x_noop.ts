import { Session } from "node:inspector";
import { Workspace } from "../src/workspace/workspace.ts";
const work = Deno.args[0];
const ws = await Workspace.open({ directory: work + "/sympy", cacheDirectory: work + "/cache" });
const repo = ws.repositories[0];
for (let i = 0; i < 5; i++) await ws.refresh(repo);
const session = new Session();
session.connect();
await new Promise((r) => session.post("Profiler.enable", () => session.post("Profiler.start", r)));
const ms: number[] = [];
for (let i = 0; i < 60; i++) { const t = performance.now(); await ws.refresh(repo); ms.push(performance.now() - t); }
const prof = await new Promise((r) => session.post("Profiler.stop", (_e: unknown, p: { profile: unknown }) => r(p.profile)));
Deno.writeTextFileSync("/tmp/noop.cpuprofile", JSON.stringify(prof));
ms.sort((a, b) => a - b);
console.log("median", ms[30].toFixed(1), "p10", ms[6].toFixed(1), "p90", ms[54].toFixed(1));
ws.close();
