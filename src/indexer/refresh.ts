import {
  pairRenamesByHash,
  type PlanAction,
  planCounts,
  type PlanEntry,
  reconcilePlan,
  type StoredFile,
} from "../engine/plan.ts";
import { sha256Hex } from "../engine/hash.ts";
import { PIPELINE_VERSION } from "../store/schema.ts";
import type { TargetWriter } from "../store/writer.ts";
import { type EmbeddingConfig, type EmbeddingReport, embedMissingChunks } from "./embeddings.ts";
import { gitHead, gitRenames } from "./git.ts";
import { type Inventory, takeInventory } from "./inventory.ts";
import { languageForPath, type LanguageTable, parserIdentity } from "./languages.ts";
import type { ModuleRoot, ParseReply, SkipReason } from "./parse_types.ts";
import {
  type ReplyEffect,
  replyOutcome,
  skippedEffect,
  tallyOutcomes,
  type TargetWrite,
} from "./outcome.ts";
import { moduleRootFor, readPackageRoots, repositoryManifests } from "./package_roots.ts";
import type { ParsePool } from "./pool.ts";
import { fixMallocThreshold } from "./heap.ts";
import {
  loadSettings,
  parseSettings,
  type RepositorySettings,
  SETTINGS_PATH,
  type WorkspaceLimits,
} from "./settings.ts";

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
  /**
   * A chosen file list instead of the repository's inventory, read with default settings and
   * without git (a dependency package: only the files picked from it are indexed).
   */
  files?: Inventory["files"];
  /** The workspace's limits on the repository's own settings (`sextant.yml`). */
  limits?: WorkspaceLimits;
}

/** Reconciles one repository into its target: inventory, plan, parse, commit (one transaction). */
export async function reconcileRepository(options: RefreshOptions): Promise<RefreshReport> {
  const { root, writer } = options;
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const settings = options.files
    ? await parseSettings(null)
    : await loadSettings(root, options.limits);
  writer.begin();
  try {
    progress({ phase: "inventory", done: 0, total: 0 });
    // HEAD is read while the files are listed and judged (each is a git process); the stored
    // files are read, and judged, while git lists.
    const reading = options.files ? null : gitHead(root);
    const stored = writer.storedFiles();
    const inventory: Inventory = options.files
      ? { files: options.files, skipped: [], source: "walk" }
      : await takeInventory(root, settings, stored.keys());
    const head = await reading;
    const inventoryDone = performance.now();

    const planned = await planRefresh({ ...options, settings, inventory, head, stored });
    const planDone = performance.now();

    const parsedAll = await parseAndWrite({ ...options, settings, inventory, planned, progress });
    for (const entry of planned.plan) {
      if (entry.action === "delete") writer.deleteFile(entry.path);
    }
    // Provider vectors for new chunk contents, in the same transaction (a failure is reported,
    // never fatal: search falls back to the hashing vectors).
    const embeddings = options.embeddings
      ? await embedMissingChunks(writer, options.embeddings)
      : null;
    if (embeddings && embeddings.computed > 0) writer.changed = true;
    const parseDone = performance.now();
    progress({ phase: "commit", done: parsedAll.done, total: parsedAll.total });

    const tally = tallyOutcomes(
      { plan: planned.plan, skipped: inventory.skipped },
      parsedAll.effects,
    );
    const previousGeneration = Number(writer.meta("generation") ?? "0");
    const changed = writer.changed;
    const generation = writer.commit({
      head,
      settingsHash: settings.hash,
      extra: {
        ...commitMeta({ settings, inventory, tally, embeddings, changed, started }),
        [CONTENT_SKIPS_META]: parsedAll.contentSkips,
      },
    });
    const commitDone = performance.now();
    // Working-tree moves (no commit, so git saw no rename) show as renames by content hash.
    const counts = planCounts(pairRenamesByHash(
      [...tally.finalActions.entries()].map(([path, action]) => ({
        path,
        action,
        knownHash: null,
      })),
      tally.addedHashes,
      planned.stored,
    ));
    progress({ phase: "done", done: parsedAll.done, total: parsedAll.total });
    return {
      generation,
      previousGeneration,
      changed,
      head,
      plan: counts,
      parsed: tally.parsed,
      verifiedUnchanged: tally.verifiedUnchanged,
      skipped: tally.skipped,
      errors: writer.errorCount(),
      vectors: { ...writer.vectors },
      embeddings,
      files: inventory.files.length,
      bytes: tally.bytes,
      lines: tally.lines,
      timings_ms: {
        inventory: round(inventoryDone - started),
        plan: round(planDone - inventoryDone),
        parse: round(parseDone - planDone),
        write: round(parsedAll.writeMs),
        commit: round(commitDone - parseDone),
        total: round(commitDone - started),
      },
    };
  } catch (error) {
    writer.rollback();
    throw error;
  }
}

/** The plan of a refresh, with each file's language and fingerprint key. */
interface PlannedRefresh {
  stored: Map<string, StoredFile>;
  plan: PlanEntry[];
  languages: Map<string, string | null>;
  fingerprintKeys: Map<string, string>;
  /** Each file's package root (`package_roots.ts`), when it has one. */
  packageRoots: Map<string, ModuleRoot>;
}

/** Plans the refresh: the inventory against the stored rows, with git's renames. */
async function planRefresh(options: {
  root: string;
  writer: TargetWriter;
  table: LanguageTable;
  settings: RepositorySettings;
  inventory: Inventory;
  head: string | null;
  /** The stored state of every file (`TargetWriter.storedFiles`). */
  stored: Map<string, StoredFile>;
}): Promise<PlannedRefresh> {
  const { root, writer, table, settings, inventory, head, stored } = options;
  const previousHead = writer.meta("head") || null;
  const renames = previousHead && head && previousHead !== head
    ? await gitRenames(root, previousHead, head)
    : new Map<string, string>();
  const fingerprintKeys = new Map<string, string>();
  const languages = new Map<string, string | null>();
  // A file's module is named from its package root: a change of root re-parses the file.
  const roots = readPackageRoots(
    repositoryManifests(root, inventory.files.map((file) => file.path)),
  );
  const packageRoots = new Map<string, ModuleRoot>();
  const keyOfIdentity = new Map<string, string>();
  const planInput = inventory.files.map((file) => {
    const language = languageForPath(table, file.path, settings.languages);
    languages.set(file.path, language);
    const packageRoot = moduleRootFor(roots, file.path, language);
    if (packageRoot !== null) packageRoots.set(file.path, packageRoot);
    const rootKey = packageRoot
      ? `${packageRoot.dir}|${packageRoot.name}|${packageRoot.exported ?? ""}`
      : "";
    // Files of one language and package root share their key: hashed once.
    const identity = `${settings.hash}|${
      parserIdentity(table, language)
    }|${language}|${PIPELINE_VERSION}|${rootKey}`;
    let key = keyOfIdentity.get(identity);
    if (key === undefined) keyOfIdentity.set(identity, key = sha256Hex(identity).slice(0, 12));
    fingerprintKeys.set(file.path, key);
    return { ...file, fingerprintKey: key };
  });
  return {
    stored,
    plan: reconcilePlan({ inventory: planInput, stored, renames, held: writer.heldFailures() }),
    languages,
    fingerprintKeys,
    packageRoots,
  };
}

/**
 * Parses every file the plan touches (and unchanged files with an error other
 * than a syntax report, to retry them) in the Worker pool, writing each file's
 * rows as its reply comes.
 */
async function parseAndWrite(options: {
  root: string;
  writer: TargetWriter;
  table: LanguageTable;
  pool: () => ParsePool;
  settings: RepositorySettings;
  inventory: Inventory;
  planned: PlannedRefresh;
  progress: (progress: RefreshProgress) => void;
}): Promise<{
  effects: { path: string; effect: ReplyEffect }[];
  done: number;
  total: number;
  writeMs: number;
  /** What the commit records of files skipped for their bytes (`ContentSkips`). */
  contentSkips: string;
}> {
  const { root, writer, settings, planned, progress } = options;
  const retry = writer.retryPaths();
  const stats = new Map(options.inventory.files.map((file) => [file.path, file]));
  const effects: { path: string; effect: ReplyEffect }[] = [];
  const skips = ContentSkips.parse(writer.meta(CONTENT_SKIPS_META));
  const work = planned.plan.filter((entry) => {
    if (entry.action === "add") {
      const reason = skips.still(entry.path, stats.get(entry.path), planned.fingerprintKeys);
      if (reason !== null) {
        // The very bytes a Worker skipped before (same stat and settings): skipped again unread.
        effects.push({ path: entry.path, effect: skippedEffect(reason) });
        return false;
      }
    }
    return entry.action === "add" || entry.action === "update" || entry.action === "rename" ||
      (entry.action === "unchanged" && !entry.held && retry.has(entry.path));
  });
  let done = 0;
  let writeMs = 0;
  progress({ phase: "parse", done, total: work.length });
  if (work.length === 0) {
    return { effects, done, total: 0, writeMs, contentSkips: skips.serialize(stats) };
  }
  // Before the pool starts a Worker: the replies' large blocks get pages of their own.
  fixMallocThreshold();
  const pool = options.pool();
  await Promise.all(work.map(async (entry, id) => {
    const reply = await pool.parse({
      id,
      root,
      path: entry.path,
      language: planned.languages.get(entry.path) ?? null,
      knownHash: entry.knownHash,
      maxFileSize: settings.maxFileSize,
      packageRoot: planned.packageRoots.get(entry.path) ?? null,
      timeoutMs: settings.parseTimeoutMs,
    });
    const writeStarted = performance.now();
    done++;
    skips.note(entry, reply, stats.get(entry.path), planned.fingerprintKeys);
    const outcome = replyOutcome(entry, reply, {
      stored: planned.stored.has(entry.path),
      present: reply.status !== "skipped" || reply.reason !== "unreadable" ||
        exists(`${root}/${entry.path}`),
      mtimeMs: stats.get(entry.path)?.mtimeMs,
      size: stats.get(entry.path)?.size,
    });
    let applied = 0;
    try {
      for (const write of outcome.writes) {
        applyWrite(write, { writer, table: options.table, planned });
        applied++;
      }
    } catch (error) {
      // One file's rows failing to write must not lose the others: record and go on.
      writer.recordError(entry.path, "write", (error as Error).message);
    }
    if (applied >= outcome.effectAfter) effects.push({ path: entry.path, effect: outcome.effect });
    if (done % 25 === 0 || done === work.length) {
      progress({ phase: "parse", done, total: work.length });
    }
    writeMs += performance.now() - writeStarted;
  }));
  return { effects, done, total: work.length, writeMs, contentSkips: skips.serialize(stats) };
}

/** Reasons a Worker skips a file for its bytes alone: equal bytes are skipped again. */
const CONTENT_SKIP_REASONS: ReadonlySet<SkipReason> = new Set(["binary", "not_utf8"]);

/** Files remembered per target at most (~100 bytes of meta each). */
const CONTENT_SKIPS_MAX = 10_000;

/** The meta key of `ContentSkips`. */
const CONTENT_SKIPS_META = "content_skips";

interface ContentSkip {
  size: number;
  mtimeMs: number;
  key: string;
  reason: SkipReason;
}

/**
 * Files never indexed that a Worker skipped for their bytes (binary, not UTF-8), with the stat
 * and fingerprint key they were read under, kept in the target's meta. A later refresh skips
 * them again without sending them to a parse Worker while size, mtime and key stay equal — the
 * plan's own rule for unchanged files — so a no-op refresh, a restarted daemon's first one
 * included, starts no parse Worker for them. Forgotten when the bytes change, the file is read
 * to anything else, or it leaves the inventory.
 */
class ContentSkips {
  readonly #files: Map<string, ContentSkip>;

  private constructor(files: Map<string, ContentSkip>) {
    this.#files = files;
  }

  /** The skips a commit recorded (none when absent or unreadable). */
  static parse(recorded: string | null): ContentSkips {
    try {
      const entries = recorded ? JSON.parse(recorded) as [string, ContentSkip][] : [];
      return new ContentSkips(new Map(Array.isArray(entries) ? entries : []));
    } catch {
      return new ContentSkips(new Map());
    }
  }

  /** What a commit records: the skips of files still in the inventory. */
  serialize(present: ReadonlyMap<string, unknown>): string {
    return JSON.stringify([...this.#files].filter(([path]) => present.has(path)));
  }

  /** The reason the file is still skipped for, or null when its stat or key moved. */
  still(
    path: string,
    stat: { size: number; mtimeMs: number } | undefined,
    keys: ReadonlyMap<string, string>,
  ): SkipReason | null {
    const known = this.#files.get(path);
    if (!known || !stat) return null;
    const same = known.size === stat.size && known.mtimeMs === stat.mtimeMs &&
      known.key === keys.get(path);
    return same ? known.reason : null;
  }

  /** Remembers (or forgets) a file from its reply; only never-stored files are remembered. */
  note(
    entry: PlanEntry,
    reply: ParseReply,
    stat: { size: number; mtimeMs: number } | undefined,
    keys: ReadonlyMap<string, string>,
  ): void {
    const key = keys.get(entry.path);
    const skipped = reply.status === "skipped" && CONTENT_SKIP_REASONS.has(reply.reason);
    if (!skipped || entry.action !== "add" || !stat || key === undefined) {
      this.#files.delete(entry.path);
      return;
    }
    if (this.#files.size >= CONTENT_SKIPS_MAX && !this.#files.has(entry.path)) return;
    this.#files.set(entry.path, {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      key,
      reason: reply.reason,
    });
  }
}

/** Makes one write on the target. */
function applyWrite(
  write: TargetWrite,
  context: { writer: TargetWriter; table: LanguageTable; planned: PlannedRefresh },
): void {
  const { writer, table, planned } = context;
  switch (write.op) {
    case "replace": {
      const { reply } = write;
      const language = planned.languages.get(write.path) ?? null;
      writer.replaceFile({
        path: write.path,
        fingerprintKey: planned.fingerprintKeys.get(write.path)!,
        contentHash: reply.hash,
        size: reply.size,
        mtimeMs: write.mtimeMs,
        language,
        parser: parserIdentity(table, language),
        capability: reply.capability,
        lineCount: reply.lineCount,
        rows: reply.rows,
      });
      return;
    }
    case "delete":
      writer.deleteFile(write.path);
      return;
    case "touch":
      writer.touchFile(write.path, write.size, write.mtimeMs);
      return;
    case "record_error":
      writer.recordError(
        write.path,
        write.stage,
        write.message,
        write.held && { ...write.held, fingerprintKey: planned.fingerprintKeys.get(write.path)! },
      );
      return;
    case "touch_error":
      writer.touchError(write.path, write.size, write.mtimeMs);
      return;
    case "clear_error":
      writer.clearError(write.path);
      return;
  }
}

/** The meta values a commit records beside the generation: skips, limitations, reports. */
function commitMeta(options: {
  settings: RepositorySettings;
  inventory: Inventory;
  tally: { parsed: number; skipped: Partial<Record<SkipReason, number>> };
  embeddings: EmbeddingReport | null;
  changed: boolean;
  started: number;
}): Record<string, string> {
  const { settings, inventory, tally, embeddings } = options;
  const limitations = settings.chunkers.length > 0
    ? [`custom chunkers in ${SETTINGS_PATH} are never executed: ${settings.chunkers.join(", ")}`]
    : [];
  limitations.push(...settings.capped);
  const extra: Record<string, string> = {
    skipped: JSON.stringify(tally.skipped),
    limitations: JSON.stringify(limitations),
    inventory_source: inventory.source,
  };
  if (embeddings) {
    extra.embeddings = JSON.stringify({ model: embeddings.model, error: embeddings.error });
  }
  if (options.changed) {
    extra.last_refresh = JSON.stringify({
      at: new Date().toISOString(),
      parsed: tally.parsed,
      files: inventory.files.length,
      timings_ms: { total: round(performance.now() - options.started) },
    });
  }
  return extra;
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
