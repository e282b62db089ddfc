import type { Envelope } from "../protocol/types.ts";
import type { RepositoryStatus } from "../actions/status.ts";
import type { RefreshReport } from "../indexer/refresh.ts";

/** Formats an envelope for a person: ripgrep-style `path:line: text` lines. */
export function formatHuman(envelope: Envelope, multiRepo: boolean): string {
  const lines: string[] = [];
  const prefix = (repo: string) => (multiRepo ? `${repo}/` : "");
  switch (envelope.action) {
    case "status": {
      const data = envelope.data as { repositories: RepositoryStatus[] };
      for (const repo of data.repositories) {
        lines.push(`${repo.name}  ${repo.root}`);
        lines.push(
          `  state ${repo.state}  generation ${repo.generation}  head ${
            repo.head?.slice(0, 12) ?? "-"
          }`,
        );
        lines.push(
          `  files ${repo.files}  chunks ${repo.chunks}  symbols ${repo.symbols}  relations ${repo.relations}  target ${
            formatBytes(repo.target_bytes)
          }`,
        );
        const languages = Object.entries(repo.languages).sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v}`).join(", ");
        if (languages) lines.push(`  languages ${languages}`);
        const skipped = Object.entries(repo.skipped).map(([k, v]) => `${k} ${v}`).join(", ");
        lines.push(`  skipped ${skipped || "none"}`);
        lines.push(`  errors ${repo.errors.count}`);
        for (const error of repo.errors.sample) {
          lines.push(`    ${error.path}: ${error.stage}: ${error.message}`);
        }
        if (repo.dependencies) {
          const deps = repo.dependencies;
          const problems = Object.entries(deps.problems).map(([k, v]) => `${k} ${v}`).join(", ");
          lines.push(
            `  dependencies ${deps.packages.length} packages, ${deps.files} files, target ${
              formatBytes(deps.target_bytes)
            }${problems ? `; ${problems}` : ""}`,
          );
        }
        for (const server of repo.lsp ?? []) {
          const timings = [
            server.ready_ms != null ? `ready in ${server.ready_ms} ms` : "",
            server.p50_request_ms != null ? `p50 ${server.p50_request_ms} ms` : "",
          ].filter(Boolean).join(", ");
          lines.push(
            `  lsp ${server.server} ${server.state}${timings ? ` (${timings})` : ""}${
              server.last_error ? `: ${server.last_error}` : ""
            }`,
          );
        }
        for (const limitation of repo.limitations) lines.push(`  limitation: ${limitation}`);
      }
      break;
    }
    case "refresh":
    case "rebuild": {
      const data = envelope.data as { reports: (RefreshReport & { name: string })[] };
      for (const r of data.reports) {
        if (!r.plan) {
          // A path-restricted caller gets no whole-tree counts.
          lines.push(
            `${r.name}: generation ${r.generation}${r.changed ? " (changed)" : " (unchanged)"}`,
          );
          continue;
        }
        const plan = Object.entries(r.plan).map(([k, v]) => `${k} ${v}`).join(", ");
        lines.push(
          `${r.name}: generation ${r.generation}${
            r.changed ? " (changed)" : " (unchanged)"
          }; ${plan}; ${r.errors} error(s); ${r.timings_ms.total} ms`,
        );
      }
      break;
    }
    case "symbols":
      for (const hit of envelope.results) {
        lines.push(
          `${prefix(hit.repo)}${hit.path}:${hit.start_line}: ${hit.kind} ${hit.symbol}${
            hit.signature ? `  ${hit.signature}` : ""
          }`,
        );
      }
      break;
    case "definition":
    case "references":
    case "callers":
    case "callees":
    case "impact":
    case "neighborhood": {
      // `path:line: text  ← symbol (relation, evidence, confidence)`: where, what reached it, how sure.
      for (const hit of envelope.results) {
        const text = hit.snippet.split("\n")[0] ?? "";
        const how = [hit.relation, hit.evidence, hit.confidence].filter((v) => v).join(", ");
        lines.push(
          `${prefix(hit.repo)}${hit.path}:${hit.start_line}: ${text.trim()}${
            hit.symbol ? `  ← ${hit.symbol}` : ""
          }${how ? ` (${how})` : ""}`,
        );
      }
      for (const candidate of envelope.candidates ?? []) {
        const why = typeof candidate.why === "string" ? ` (${candidate.why})` : "";
        lines.push(
          `candidate: ${prefix(candidate.repo)}${candidate.path}:${candidate.start_line}: ${
            candidate.symbol ?? ""
          }${why}`,
        );
      }
      const mermaid = (envelope.data as { mermaid?: string } | undefined)?.mermaid;
      if (mermaid) lines.push(mermaid);
      break;
    }
    case "map":
      // `path  score` then its definitions' `line: signature`; onboarding adds the stage and why.
      for (const hit of envelope.results) {
        const stage = typeof hit.stage === "string" ? `[${hit.stage}] ` : "";
        const why = typeof hit.why === "string" ? ` — ${hit.why}` : "";
        lines.push(`${stage}${prefix(hit.repo)}${hit.path}${why}`);
        for (const definition of stringList(hit.definitions)) lines.push(`  ${definition}`);
      }
      break;
    case "outline":
      // One node a line, indented by level: directories end in '/', definitions show their line.
      for (const hit of envelope.results) {
        const indent = "  ".repeat(typeof hit.level === "number" ? hit.level : 0);
        const summary = typeof hit.summary === "string" ? hit.summary : "";
        const label = hit.kind === "repository"
          ? `${hit.repo}/`
          : hit.kind === "directory"
          ? `${prefix(hit.repo)}${hit.path}`
          : hit.kind === "file"
          ? `${prefix(hit.repo)}${hit.path}`
          : `${hit.start_line}:`;
        const gap = label.endsWith(":") ? " " : "  ";
        lines.push(`${indent}${label}${summary ? `${gap}${summary}` : ""}`);
      }
      break;
    case "context":
      // `path:start-end: [piece] symbol — why (confidence)`, then the piece's text.
      for (const hit of envelope.results) {
        const what = [hit.piece, hit.symbol].filter((v) => v).join(" ");
        lines.push(
          `${prefix(hit.repo)}${hit.path}:${hit.start_line}-${hit.end_line}: [${what}] — ${
            hit.why ?? ""
          } (${hit.confidence ?? "exact"})`,
        );
        if (hit.snippet) lines.push(hit.snippet, "");
      }
      break;
    case "verify": {
      // `[verdict] path:start-end symbol — reason`, then the score.
      for (const hit of envelope.results) {
        const range = hit.lines_cited === false
          ? ""
          : hit.start_line === hit.end_line
          ? `:${hit.start_line}`
          : `:${hit.start_line}-${hit.end_line}`;
        const found = Array.isArray(hit.found_at) && hit.found_at.length > 0
          ? `; now at ${
            (hit.found_at as { path: string; start_line: number }[]).map((at) =>
              `${at.path}:${at.start_line}`
            ).join(", ")
          }`
          : "";
        lines.push(
          `[${hit.verdict}] ${prefix(hit.repo)}${hit.path}${range}${
            hit.symbol ? ` ${hit.symbol}` : ""
          } — ${hit.reason}${found}`,
        );
      }
      const data = envelope.data as { score: number; ok: number; total: number } | undefined;
      if (data) lines.push(`score ${data.score} (${data.ok}/${data.total} hold)`);
      break;
    }
    default:
      for (const hit of envelope.results) {
        const line = typeof hit.match_line === "number" ? hit.match_line : hit.start_line;
        const text = hit.snippet.split("\n")[line - hit.start_line] ?? "";
        lines.push(`${prefix(hit.repo)}${hit.path}:${line}: ${text.trim()}`);
      }
  }
  for (const limitation of envelope.limitations) {
    if (envelope.action !== "status") lines.push(`note: ${limitation}`);
  }
  if (envelope.provenance.fallback_used) lines.push(`note: ${envelope.provenance.fallback_reason}`);
  return lines.join("\n");
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} B`;
}
