/** Probe one eval row: selected terms and where the gold files rank (a tuning aid). */
import { runAction } from "../src/actions/dispatch.ts";
import { analyzeQuery } from "../src/engine/query.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { selectTerms } from "../src/search/lexical.ts";

const [dataset, id, tree, cache, strategy = "lexical"] = Deno.args;
const row = Deno.readTextFileSync(dataset).split("\n").filter(Boolean).map((l) => JSON.parse(l))
  .find((r) => r.instance_id === id || r.commit === id);
const commit = row.base_commit ?? row.parent;
new Deno.Command("git", { args: ["checkout", "-q", "--detach", "--force", commit], cwd: tree })
  .outputSync();
const ws = await Workspace.open({ directory: tree, cacheDirectory: cache });
await ws.refresh(ws.repositories[0]);
const analysis = analyzeQuery(row.query);
console.log("identifiers", analysis.identifiers.slice(0, 30).join(" "));
console.log("paths", JSON.stringify(analysis.paths.slice(0, 10)));
ws.withReader(ws.repositories[0], (reader) => {
  const sel = selectTerms(reader, analysis.terms, reader.fileTable().chunks);
  console.log(
    "selected",
    sel.map((t) => `${t.term}:${t.weight.toFixed(1)}/${t.idf.toFixed(1)}`).join(" "),
  );
});
const answer = await runAction(ws, "search", { query: row.query, strategy, limit: 40 });
const seen: string[] = [];
for (const hit of answer.results) {
  if (seen.includes(hit.path)) continue;
  seen.push(hit.path);
  console.log(
    seen.length,
    row.gold_files.includes(hit.path) ? "GOLD" : "    ",
    hit.path,
    hit.symbol,
    hit.score,
  );
  if (seen.length >= 12) break;
}
console.log("gold", row.gold_files, "confidence", answer.provenance.confidence);
ws.close();
