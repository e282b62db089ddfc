import {
  CORE_WASM,
  type GrammarLanguage,
  type LanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "./languages.ts";
import type { FileIdentity, ParseJob, ParseReply, WorkerGrammar } from "./parse_types.ts";
import { PARSE_TIMEOUT_MS } from "./settings.ts";
import { confirmOpened, type OpenedFile, readConfinedFile, type Refusal } from "./confined.ts";
import { sha256Hex } from "../engine/hash.ts";
import type {
  WorkerInit,
  WorkerRead,
  WorkerReady,
  WorkerRelease,
  WorkerReply,
  WorkerWarm,
} from "./parse_worker.ts";

/** Jobs waiting per Worker before the pool starts another. */
const JOBS_PER_WORKER = 64;

/**
 * Workers in a row that may fail while loading their modules (before taking any job) until the
 * pool gives up: a broken installation fails every Worker alike, and replacing each one forever
 * would leave the refresh waiting on jobs no Worker will take.
 */
export const START_ATTEMPTS = 3;

/**
 * What the pool needs of a parse Worker: a `Worker` it started, or one another thread started
 * for it (`src/workspace/worker_relay.ts`: a Worker started inside a Worker answers its first
 * message ~1 s late under Deno 2.9.1-2.9.6, against ~35 ms for one the main thread starts).
 */
export interface ParseWorkerHandle {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
  /** A failure of the Worker (an uncaught error, a failed module load). */
  onerror: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}

/** Starts a parse Worker: `new Worker` unless the pool is told otherwise. */
export type ParseWorkerStarter = (module: URL, options: WorkerOptions) => ParseWorkerHandle;

/** How a pool's Workers start, and the nice value each sets for its own thread (Linux). */
export interface WorkerLaunch {
  start?: ParseWorkerStarter;
  nice?: number;
}

interface Slot {
  worker: ParseWorkerHandle;
  /** The Worker has started: jobs are sent only then, so a timeout never counts its start. */
  ready: boolean;
  /** Languages whose grammar this Worker has been sent. */
  grammars: Set<string>;
  busy: {
    job: ParseJob;
    resolve: (reply: ParseReply) => void;
    timer: ReturnType<typeof setTimeout>;
    /** The bytes the Worker read for the job, once it says so (and the read is confirmed). */
    read?: FileIdentity;
  } | null;
}

/**
 * A pool of parse Workers for one repository root. Each Worker may read only
 * that root: no write, net, env, run, ffi or sys permission.
 *
 * Deno's read permission judges a path as written, so a Worker told to read
 * `src/pkg/a.ts` reads wherever `src/pkg` leads at the instant of the open: a
 * directory swapped for a symlink to an outside directory between any check
 * and the read is followed. So no reply is taken on the strength of a path
 * checked before: the Worker reads through a descriptor it holds open, and the
 * pool asks the kernel where that open file lies (`/proc/self/fd/<fd>`, the
 * path of the very file opened, kept current by the kernel) before taking the
 * reply. A file that lies anywhere but at its path inside the root is refused.
 */
/**
 * Closes the pools of `pools` whose key `running(key)` says no refresh uses, and forgets them:
 * before a pool starts for another repository, so that one process holds the parse Workers (V8
 * heap and grammars' wasm memory, which never shrinks) of the repositories refreshing now, not
 * of every repository it refreshed.
 */
export function closeIdlePools<K>(pools: Map<K, ParsePool>, running: (key: K) => boolean): void {
  for (const [key, pool] of pools) {
    if (running(key)) continue;
    pool.close();
    pools.delete(key);
  }
}

export class ParsePool {
  readonly #root: string;
  /** The root with its own symlinks resolved: how the kernel names files under it. */
  readonly #realRoot: string;
  /** Each job root (a package's files are relative to a directory above its own) resolved. */
  readonly #realRoots = new Map<string, string | null>();
  readonly #table: LanguageTable;
  readonly #init: WorkerInit;
  readonly #slots: Slot[] = [];
  readonly #queue: { job: ParseJob; resolve: (reply: ParseReply) => void }[] = [];
  /** The most Workers this pool starts. */
  readonly #size: number;
  /** The Worker module (the parse Worker; a test's own to fail on purpose). */
  readonly #module: URL;
  /** Workers in a row that failed before they were ready. */
  #startFailures = 0;
  /** Why no Worker can start, once `START_ATTEMPTS` in a row have failed: every job fails so. */
  #startFailure: string | null = null;
  #closed = false;
  /** Whether a job was ever given to this pool. */
  #used = false;
  readonly #start: ParseWorkerStarter;
  /** The nice value each Worker sets for its own thread at start (Linux), or null. */
  readonly #nice: number | null;

  /**
   * Starts no Worker yet: the first job starts one, and another starts whenever more than
   * `JOBS_PER_WORKER` jobs per Worker wait, up to `size` (default: the cores, at most 4). A
   * refresh of a few files costs one Worker, not one per core.
   */
  constructor(
    options: { root: string; table: LanguageTable; size?: number; module?: URL } & WorkerLaunch,
  ) {
    this.#module = options.module ?? new URL("./parse_worker.ts", import.meta.url);
    this.#start = options.start ?? ((module, workerOptions) => new Worker(module, workerOptions));
    this.#nice = options.nice ?? null;
    this.#root = options.root;
    this.#realRoot = Deno.realPathSync(options.root);
    this.#table = options.table;
    this.#init = workerInit(options.table);
    this.#size = Math.max(
      1,
      options.size ?? Math.min(navigator.hardwareConcurrency ?? 2, 4),
    );
  }

  /** Parses one file; never rejects (failures come back as replies). */
  parse(job: ParseJob): Promise<ParseReply> {
    if (this.#closed) throw new Error("Cannot parse: the pool is closed");
    this.#used = true;
    if (this.#startFailure !== null) return Promise.resolve(this.#unstarted(job));
    return new Promise((resolve) => {
      this.#queue.push({ job, resolve });
      if (
        this.#slots.length < this.#size &&
        this.#queue.length > this.#slots.length * JOBS_PER_WORKER
      ) this.#slots.push(this.#spawn());
      this.#pump();
    });
  }

  /** Whether no job was ever given to this pool (its Workers are as they started). */
  get fresh(): boolean {
    return !this.#used;
  }

  /** The languages whose grammar some Worker of this pool has been sent. */
  languages(): string[] {
    const languages = new Set<string>();
    for (const slot of this.#slots) for (const language of slot.grammars) languages.add(language);
    return [...languages];
  }

  /**
   * Starts one Worker, when none runs, and has it load the grammars of `languages` before any
   * job: a pool kept on standby takes its next refresh's first file without waiting for a
   * Worker's start and a grammar's query compile (Python's: 120-150 ms).
   */
  warm(languages: readonly string[]): void {
    if (this.#closed || this.#startFailure !== null) return;
    if (this.#slots.length === 0) this.#slots.push(this.#spawn());
    const slot = this.#slots[0];
    for (const language of languages) {
      if (slot.grammars.has(language)) continue;
      const grammar = workerGrammar(this.#table, language);
      if (!grammar) continue;
      slot.grammars.add(language);
      slot.worker.postMessage({ type: "grammar", grammar } satisfies WorkerWarm);
    }
  }

  close(): void {
    this.#closed = true;
    for (const slot of this.#slots) {
      if (slot.busy) clearTimeout(slot.busy.timer);
      slot.worker.terminate();
    }
    this.#slots.length = 0;
  }

  #spawn(): Slot {
    const worker = this.#start(this.#module, {
      type: "module",
      deno: {
        permissions: {
          read: [this.#root],
          write: false,
          net: false,
          env: false,
          run: false,
          ffi: false,
          // Only to lower its own thread's priority, when asked to (`WorkerInit.nice`).
          sys: this.#nice === null ? false : ["setPriority"],
          import: false,
        },
      },
    });
    const slot: Slot = { worker, ready: false, grammars: new Set(), busy: null };
    worker.onmessage = (event: MessageEvent<WorkerReply | WorkerRead | WorkerReady>) => {
      const message = event.data;
      if (!("type" in message)) this.#finish(slot, message);
      else if (message.type === "read") this.#read(slot, message);
      else {
        slot.ready = true;
        this.#startFailures = 0;
        this.#pump();
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (slot.ready) this.#replace(slot, "crash", `worker crashed: ${event.message}`);
      else this.#failedToStart(slot, event.message);
    };
    worker.postMessage(this.#nice === null ? this.#init : { ...this.#init, nice: this.#nice });
    return slot;
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.busy || this.#queue.length === 0) continue;
      const next = this.#queue.shift()!;
      const timer = this.#timer(slot, next.job);
      slot.busy = { ...next, timer };
      const language = next.job.language;
      const grammar = language && !slot.grammars.has(language)
        ? workerGrammar(this.#table, language)
        : null;
      if (grammar) slot.grammars.add(grammar.language);
      slot.worker.postMessage(grammar ? { ...next.job, grammar } : next.job);
    }
  }

  /**
   * The Worker has read the job's bytes and loaded their grammar, and begins parsing: the
   * timeout starts again for the parse itself (reading and a grammar's first load had their own),
   * and the bytes are kept (if the read is confirmed) to name them if the parse fails.
   */
  #read(slot: Slot, message: WorkerRead): void {
    const busy = slot.busy;
    if (!busy || busy.job.id !== message.id) return;
    if (this.#confirm(busy.job, message.opened) === null) busy.read = message.file;
    clearTimeout(busy.timer);
    busy.timer = this.#timer(slot, busy.job);
  }

  /** The timeout of one job on one slot. */
  #timer(slot: Slot, job: ParseJob): ReturnType<typeof setTimeout> {
    const timeout = job.timeoutMs ?? PARSE_TIMEOUT_MS;
    return setTimeout(
      () => this.#replace(slot, "timeout", `timed out after ${timeout} ms`),
      timeout,
    );
  }

  #finish(slot: Slot, message: WorkerReply): void {
    const busy = slot.busy;
    let reply = message.reply;
    if (!busy || busy.job.id !== reply.id) return;
    if (message.opened) {
      const refusal = this.#confirm(busy.job, message.opened);
      slot.worker.postMessage({ type: "release" } satisfies WorkerRelease);
      if (refusal) reply = { id: reply.id, status: "skipped", ...refusal };
    }
    clearTimeout(busy.timer);
    slot.busy = null;
    busy.resolve(reply);
    this.#pump();
  }

  /** Null when the file a Worker read for `job` lies at its path inside the root; else why not. */
  #confirm(job: ParseJob, opened: OpenedFile): Refusal | null {
    const path = this.#pathInRoot(job);
    if (path === null) {
      return { reason: "symlink_escape", message: "outside the repository root" };
    }
    return confirmOpened(this.#realRoot, path, opened);
  }

  /**
   * The job's file relative to the pool's root (a job's root may be a directory above it, as
   * site-packages is for a Python package), or null when it lies outside.
   */
  #pathInRoot(job: ParseJob): string | null {
    let base = this.#realRoots.get(job.root);
    if (base === undefined) {
      try {
        base = Deno.realPathSync(job.root);
      } catch {
        base = null;
      }
      this.#realRoots.set(job.root, base);
    }
    if (base === null) return null;
    const full = `${base}/${job.path}`;
    return full.startsWith(`${this.#realRoot}/`) ? full.slice(this.#realRoot.length + 1) : null;
  }

  /**
   * A Worker failed before it was ready (it holds no job): replaced, unless `START_ATTEMPTS`
   * in a row have failed so; then, with no other Worker ready, every waiting and later job
   * fails with the reason (a `parse` failure of no file's making: retried by the next refresh).
   */
  #failedToStart(slot: Slot, message: string): void {
    slot.worker.terminate();
    const index = this.#slots.indexOf(slot);
    if (this.#closed || index < 0) return;
    if (++this.#startFailures < START_ATTEMPTS) {
      this.#slots[index] = this.#spawn();
      return;
    }
    this.#slots.splice(index, 1);
    if (this.#slots.some((other) => other.ready)) return;
    for (const other of this.#slots) other.worker.terminate();
    this.#slots.length = 0;
    this.#startFailure =
      `parse Workers cannot start (${START_ATTEMPTS} in a row failed): ${message}`;
    for (const waiting of this.#queue.splice(0)) waiting.resolve(this.#unstarted(waiting.job));
  }

  #unstarted(job: ParseJob): ParseReply {
    return { id: job.id, status: "failed", stage: "parse", message: this.#startFailure ?? "" };
  }

  /**
   * Replaces a Worker that ran out of time or crashed; its job fails with the
   * bytes it was parsing, when known (so the same bytes are not tried again).
   */
  #replace(slot: Slot, stage: "timeout" | "crash", message: string): void {
    const busy = slot.busy;
    slot.worker.terminate();
    const index = this.#slots.indexOf(slot);
    if (busy) clearTimeout(busy.timer);
    if (this.#closed || index < 0) return;
    this.#slots[index] = this.#spawn();
    if (busy) {
      const failed: ParseReply = { id: busy.job.id, status: "failed", stage, message };
      if (busy.read) failed.file = busy.read;
      else {
        // Out of time before the Worker said what it read (a slow start, a loaded machine):
        // the bytes as they are now, which the refresh holds only if the listing saw them too.
        const path = this.#pathInRoot(busy.job);
        const now = path === null
          ? null
          : readConfinedFile(this.#realRoot, path, { maxBytes: busy.job.maxFileSize });
        if (now) {
          failed.file = {
            size: now.bytes.length,
            mtimeMs: now.mtimeMs,
            hash: sha256Hex(now.bytes),
          };
          failed.readAfter = true;
        }
      }
      busy.resolve(failed);
    }
    this.#pump();
  }
}

let cachedInit: WorkerInit | null = null;
const cachedGrammars = new Map<string, WorkerGrammar>();

/**
 * The Worker start message (the compiled core and text chunking), made once per process.
 *
 * The core and the grammars go to the Workers compiled (`WebAssembly.Module`), not as bytes:
 * Workers that instantiate one module share V8's code for it, optimised tiers included, where
 * each Worker that compiled bytes of its own started in baseline code again and optimised it
 * again on its own threads. sympy's `core/basic.py`, first parse in a new Worker, the Worker
 * after the first: grammar query compiled in 68-71 ms (was 98-123), parse 12 (35), query
 * matches 8-10 (22-23); ~185 ms from start to answer (320-345).
 */
function workerInit(table: LanguageTable): WorkerInit {
  if (cachedInit) return cachedInit;
  const textChunking: Record<string, "headings" | "lines"> = {};
  for (const [language, entry] of table.text) textChunking[language] = entry.chunking;
  cachedInit = {
    type: "init",
    core: new WebAssembly.Module(Deno.readFileSync(CORE_WASM)),
    textChunking,
  };
  return cachedInit;
}

/** A language's grammar for the Workers (compiled, and queries), made once per process; null without one. */
function workerGrammar(table: LanguageTable, language: string): WorkerGrammar | null {
  const cached = cachedGrammars.get(language);
  if (cached) return cached;
  const grammar = [...table.grammars.values()].find((entry: GrammarLanguage) =>
    entry.language === language
  );
  if (!grammar) return null;
  const wasm = readGrammarWasm(grammar);
  const loaded: WorkerGrammar = {
    language: grammar.language,
    module: new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>),
    wasm,
    query: readGrammarQueries(grammar),
    rules: grammar.rules,
    nodes: grammar.nodes,
  };
  cachedGrammars.set(language, loaded);
  return loaded;
}
