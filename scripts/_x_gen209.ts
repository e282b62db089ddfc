import { Session } from "node:inspector";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
const work = Deno.args[0];
const root = work + "/sympy";
const ws = await Workspace.open({ directory: root, cacheDirectory: work + "/cache" });
for (let i = 0; i < 30; i++) await runAction(ws, "search", { query: "warm query " + i, limit: 10 });
for (let i = 0; i < 10; i++) await runAction(ws, "symbols", { query: "Basic" + i });
const files = new TextDecoder().decode(new Deno.Command("git", { args: ["-C", root, "ls-files", "*.py"], stdout: "piped" }).outputSync().stdout).split("\n").filter(Boolean).filter((_, i) => i % 8 === 0).slice(0, 209);
const origs = files.map((f) => Deno.readTextFileSync(root + "/" + f));
try {
  files.forEach((f, i) => Deno.writeTextFileSync(root + "/" + f, origs[i] + `\n\ndef _x_added_${i}(value):\n    return value + ${i}\n`));
  let t = performance.now();
  await runAction(ws, "refresh", {});
  console.log("refresh", (performance.now() - t).toFixed(0));
  const session = new Session();
  session.connect();
  await new Promise((r) => session.post("Profiler.enable", () => session.post("Profiler.start", r)));
  t = performance.now();
  await runAction(ws, "search", { query: "expand power series", limit: 10 });
  console.log("first search", (performance.now() - t).toFixed(0));
  t = performance.now();
  await runAction(ws, "symbols", { query: "Basic" });
  console.log("first symbols", (performance.now() - t).toFixed(0));
  t = performance.now();
  await runAction(ws, "definition", { symbol: "expand" });
  console.log("first definition", (performance.now() - t).toFixed(0));
  t = performance.now();
  await runAction(ws, "search", { query: "integrate rational function", limit: 10 });
  console.log("second search", (performance.now() - t).toFixed(0));
  const prof = await new Promise((r) => session.post("Profiler.stop", (_e: unknown, p: { profile: unknown }) => r(p.profile)));
  Deno.writeTextFileSync("/tmp/g209.cpuprofile", JSON.stringify(prof));
} finally {
  files.forEach((f, i) => Deno.writeTextFileSync(root + "/" + f, origs[i]));
  await runAction(ws, "refresh", {});
}
ws.close();
