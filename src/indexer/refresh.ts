import {
  pairRenamesByHash,
  type PlanAction,
  planCounts,
  type PlanEntry,
  reconcilePlan,
} from "../engine/plan.ts";
import { sha256Hex } from "../engine/hash.ts";
import { PIPELINE_VERSION } from "../store/schema.ts";
import type { TargetWriter } from "../store/writer.ts";
import { type EmbeddingConfig, type EmbeddingReport, embedMissingChunks } from "./embeddings.ts";
import { gitHead, gitRenames } from "./git.ts";
import { takeInventory } from "./inventory.ts";
import { languageForPath, type LanguageTable, parserIdentity } from "./languages.ts";
import type { ParseReply, SkipReason } from "./parse_types.ts";
import type { ParsePool } from "./pool.ts";
import { loadSettings, SETTINGS_PATH } from "./settings.ts";

export interface RefreshProgress {
  phase: "inventory" | "plan" | "parse" | "commit" | "done";
  done: number;
  total: number;
}

export interface RefreshReport {
  generation: number;
  previousGeneration: number;
  changed: boolean;
  head: string | null;
  plan: Record<PlanAction, number>;
  parsed: number;
  verifiedUnchanged: number;
  skipped: Partial<Record<SkipReason, number>>;
  errors: number;
  /** Hashing vectors computed, and chunks that reused the vector stored for their content hash. */
  vectors: { computed: number; reused: number };
  /** Provider embeddings of this refresh, when an `embeddings:` provider is configured. */
  embeddings: EmbeddingReport | null;
  timings_ms: {
    inventory: number;
    plan: number;
    /** Parsing in Workers, overlapped with writing rows (`write` is the writer's share). */
    parse: number;
    write: number;
    commit: number;
    total: number;
  };
  files: number;
  bytes: number;
  lines: number;
}

export interface RefreshOptions {
  root: string;
  /** The target's writer; the refresh is one transaction on it. */
  writer: TargetWriter;
  table: LanguageTable;
  pool: () => ParsePool;
  onProgress?: (progress: RefreshProgress) => void;
  /** The workspace's embedding provider (`sextant.yml` `embeddings:`), if any. */
  embeddings?: EmbeddingConfig | null;
}

/** Reconciles one repository into its target: inventory, plan, parse, commit (one transaction). */
export async function reconcileRepository(options: RefreshOptions): Promise<RefreshReport> {
  const { root, writer, table } = options;
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const settings = loadSettings(root);
  writer.begin();
  try {
    progress({ phase: "inventory", done: 0, total: 0 });
    const inventory = await takeInventory(root, settings);
    const head = await gitHead(root);
    const inventoryDone = performance.now();

    const stored = writer.storedFiles();
    const previousHead = writer.meta("head") || null;
    const renames = previousHead && head && previousHead !== head
      ? await gitRenames(root, previousHead, head)
      : new Map<string, string>();
    const fingerprintKeys = new Map<string, string>();
    const languages = new Map<string, string | null>();
    const planInput = inventory.files.map((file) => {
      const language = languageForPath(table, file.path, settings.languages);
      languages.set(file.path, language);
      const key = sha256Hex(
        `${settings.hash}|${parserIdentity(table, language)}|${language}|${PIPELINE_VERSION}`,
      ).slice(0, 12);
      fingerprintKeys.set(file.path, key);
      return { ...file, fingerprintKey: key };
    });
    const plan = reconcilePlan({ inventory: planInput, stored, renames });
    const planDone = performance.now();

    const errorPaths = writer.errorPaths();
    const skipped: Partial<Record<SkipReason, number>> = {};
    for (const entry of inventory.skipped) skipped[entry.reason] = (skipped[entry.reason] ?? 0) + 1;
    const work = plan.filter((entry) =>
      entry.action === "add" || entry.action === "update" || entry.action === "rename" ||
      (entry.action === "unchanged" && errorPaths.has(entry.path))
    );
    const stats = new Map(inventory.files.map((file) => [file.path, file]));
    const finalActions = new Map<string, PlanAction>(plan.map((e) => [e.path, e.action]));
    const addedHashes = new Map<string, string>();
    let done = 0;
    let parsed = 0;
    let verifiedUnchanged = 0;
    let bytes = 0;
    let lines = 0;
    let writeMs = 0;
    progress({ phase: "parse", done, total: work.length });
    if (work.length > 0) {
      const pool = options.pool();
      const apply = (entry: PlanEntry, reply: ParseReply) => {
        done++;
        if (reply.status === "parsed") {
          const syntax = reply.output.diagnostics.join("; ");
          if (reply.output.failed && stored.has(entry.path)) {
            // Too broken to trust: keep the last good rows and say why.
            writer.recordError(entry.path, "parse", syntax);
            return;
          }
          const stat = stats.get(entry.path);
          writer.replaceFile({
            path: entry.path,
            fingerprintKey: fingerprintKeys.get(entry.path)!,
            contentHash: reply.hash,
            size: reply.size,
            mtimeMs: stat?.mtimeMs ?? reply.mtimeMs,
            language: languages.get(entry.path) ?? null,
            parser: parserIdentity(table, languages.get(entry.path) ?? null),
            capability: reply.capability,
            lineCount: reply.lineCount,
            text: reply.text,
            output: reply.output,
          });
          parsed++;
          if (entry.action === "add") addedHashes.set(entry.path, reply.hash);
          bytes += reply.size;
          lines += reply.lineCount;
          if (entry.action === "rename" && entry.from) writer.deleteFile(entry.from);
          if (reply.output.failed) writer.recordError(entry.path, "parse", syntax);
          else if (syntax) writer.recordError(entry.path, "syntax", syntax);
          else writer.clearError(entry.path);
        } else if (reply.status === "unchanged") {
          verifiedUnchanged++;
          finalActions.set(entry.path, "unchanged");
          const stat = stats.get(entry.path);
          writer.touchFile(entry.path, reply.size, stat?.mtimeMs ?? reply.mtimeMs);
        } else if (reply.status === "skipped") {
          const wasIndexed = stored.has(entry.path);
          if (reply.reason === "unreadable" && !exists(`${root}/${entry.path}`)) {
            if (wasIndexed) writer.deleteFile(entry.path);
            finalActions.set(entry.path, "delete");
          } else if (wasIndexed) {
            writer.recordError(entry.path, reply.reason, reply.message);
          } else {
            skipped[reply.reason] = (skipped[reply.reason] ?? 0) + 1;
            finalActions.delete(entry.path);
          }
        } else {
          writer.recordError(entry.path, reply.stage, reply.message);
        }
        if (done % 25 === 0 || done === work.length) {
          progress({ phase: "parse", done, total: work.length });
        }
      };
      await Promise.all(work.map(async (entry, id) => {
        const reply = await pool.parse({
          id,
          root,
          path: entry.path,
          language: languages.get(entry.path) ?? null,
          knownHash: entry.knownHash,
          maxFileSize: settings.maxFileSize,
        });
        const writeStarted = performance.now();
        applyGuarded(entry, reply, apply, writer);
        writeMs += performance.now() - writeStarted;
      }));
    }
    for (const entry of plan) {
      if (entry.action === "delete") writer.deleteFile(entry.path);
    }
    // Provider vectors for new chunk contents, in the same transaction (a failure is reported,
    // never fatal: search falls back to the hashing vectors).
    const embeddings = options.embeddings
      ? await embedMissingChunks(writer, options.embeddings)
      : null;
    if (embeddings && embeddings.computed > 0) writer.changed = true;
    const parseDone = performance.now();
    progress({ phase: "commit", done, total: work.length });
    const limitations = settings.chunkers.length > 0
      ? [`custom chunkers in ${SETTINGS_PATH} are never executed: ${settings.chunkers.join(", ")}`]
      : [];
    const previousGeneration = Number(writer.meta("generation") ?? "0");
    const changed = writer.changed;
    const extra: Record<string, string> = {
      skipped: JSON.stringify(skipped),
      limitations: JSON.stringify(limitations),
      inventory_source: inventory.source,
    };
    if (embeddings) {
      extra.embeddings = JSON.stringify({ model: embeddings.model, error: embeddings.error });
    }
    if (changed) {
      extra.last_refresh = JSON.stringify({
        at: new Date().toISOString(),
        parsed,
        files: inventory.files.length,
        timings_ms: { total: round(performance.now() - started) },
      });
    }
    const generation = writer.commit({ head, settingsHash: settings.hash, extra });
    const commitDone = performance.now();
    // Working-tree moves (no commit, so git saw no rename) show as renames by content hash.
    const counts = planCounts(pairRenamesByHash(
      [...finalActions.entries()].map(([path, action]) => ({ path, action, knownHash: null })),
      addedHashes,
      stored,
    ));
    const errors = writer.errorCount();
    progress({ phase: "done", done, total: work.length });
    return {
      generation,
      previousGeneration,
      changed,
      head,
      plan: counts,
      parsed,
      verifiedUnchanged,
      skipped,
      errors,
      vectors: { ...writer.vectors },
      embeddings,
      files: inventory.files.length,
      bytes,
      lines,
      timings_ms: {
        inventory: round(inventoryDone - started),
        plan: round(planDone - inventoryDone),
        parse: round(parseDone - planDone),
        write: round(writeMs),
        commit: round(commitDone - parseDone),
        total: round(commitDone - started),
      },
    };
  } catch (error) {
    writer.rollback();
    throw error;
  }
}

function applyGuarded(
  entry: PlanEntry,
  reply: ParseReply,
  apply: (entry: PlanEntry, reply: ParseReply) => void,
  writer: TargetWriter,
): void {
  try {
    apply(entry, reply);
  } catch (error) {
    // One file's rows failing to write must not lose the others: record and go on.
    writer.recordError(entry.path, "write", (error as Error).message);
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
