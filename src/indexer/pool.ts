import {
  CORE_WASM,
  type GrammarLanguage,
  type LanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "./languages.ts";
import type { ParseJob, ParseReply, WorkerGrammar } from "./parse_types.ts";
import type { WorkerInit } from "./parse_worker.ts";

/** Milliseconds one file may take before its Worker is replaced and the file recorded as failed. */
export const PARSE_TIMEOUT_MS = 30_000;

interface Slot {
  worker: Worker;
  /** Languages whose grammar this Worker has been sent. */
  grammars: Set<string>;
  busy: {
    job: ParseJob;
    resolve: (reply: ParseReply) => void;
    timer: ReturnType<typeof setTimeout>;
  } | null;
}

/**
 * A pool of parse Workers for one repository root. Each Worker may read only
 * that root: no write, net, env, run, ffi or sys permission.
 */
export class ParsePool {
  readonly #root: string;
  readonly #table: LanguageTable;
  readonly #init: WorkerInit;
  readonly #slots: Slot[] = [];
  readonly #queue: { job: ParseJob; resolve: (reply: ParseReply) => void }[] = [];
  #closed = false;

  constructor(options: { root: string; table: LanguageTable; size?: number }) {
    this.#root = options.root;
    this.#table = options.table;
    this.#init = workerInit(options.table);
    const size = options.size ?? Math.max(1, Math.min(navigator.hardwareConcurrency ?? 2, 4));
    for (let i = 0; i < size; i++) this.#slots.push(this.#spawn());
  }

  /** Parses one file; never rejects (failures come back as replies). */
  parse(job: ParseJob): Promise<ParseReply> {
    if (this.#closed) throw new Error("Cannot parse: the pool is closed");
    return new Promise((resolve) => {
      this.#queue.push({ job, resolve });
      this.#pump();
    });
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
    const worker = new Worker(new URL("./parse_worker.ts", import.meta.url), {
      type: "module",
      deno: {
        permissions: {
          read: [this.#root],
          write: false,
          net: false,
          env: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    });
    const slot: Slot = { worker, grammars: new Set(), busy: null };
    worker.onmessage = (event: MessageEvent<ParseReply>) => this.#finish(slot, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#replace(slot, `worker crashed: ${event.message}`);
    };
    worker.postMessage(this.#init);
    return slot;
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.busy || this.#queue.length === 0) continue;
      const next = this.#queue.shift()!;
      const timer = setTimeout(
        () => this.#replace(slot, `timed out after ${PARSE_TIMEOUT_MS} ms`),
        PARSE_TIMEOUT_MS,
      );
      slot.busy = { ...next, timer };
      const language = next.job.language;
      const grammar = language && !slot.grammars.has(language)
        ? workerGrammar(this.#table, language)
        : null;
      if (grammar) slot.grammars.add(grammar.language);
      slot.worker.postMessage(grammar ? { ...next.job, grammar } : next.job);
    }
  }

  #finish(slot: Slot, reply: ParseReply): void {
    const busy = slot.busy;
    if (!busy || busy.job.id !== reply.id) return;
    clearTimeout(busy.timer);
    slot.busy = null;
    busy.resolve(reply);
    this.#pump();
  }

  #replace(slot: Slot, message: string): void {
    const busy = slot.busy;
    slot.worker.terminate();
    const index = this.#slots.indexOf(slot);
    if (busy) clearTimeout(busy.timer);
    if (this.#closed || index < 0) return;
    this.#slots[index] = this.#spawn();
    if (busy) busy.resolve({ id: busy.job.id, status: "failed", stage: "parse", message });
    this.#pump();
  }
}

let cachedInit: WorkerInit | null = null;
const cachedGrammars = new Map<string, WorkerGrammar>();

/** The Worker start message (the core wasm and text chunking), read once per process. */
function workerInit(table: LanguageTable): WorkerInit {
  if (cachedInit) return cachedInit;
  const textChunking: Record<string, "headings" | "lines"> = {};
  for (const [language, entry] of table.text) textChunking[language] = entry.chunking;
  cachedInit = { type: "init", core: Deno.readFileSync(CORE_WASM), textChunking };
  return cachedInit;
}

/** A language's grammar for the Workers (wasm bytes and queries), read once per process; null without one. */
function workerGrammar(table: LanguageTable, language: string): WorkerGrammar | null {
  const cached = cachedGrammars.get(language);
  if (cached) return cached;
  const grammar = [...table.grammars.values()].find((entry: GrammarLanguage) =>
    entry.language === language
  );
  if (!grammar) return null;
  const loaded: WorkerGrammar = {
    language: grammar.language,
    wasm: readGrammarWasm(grammar),
    query: readGrammarQueries(grammar),
    rules: grammar.rules,
    nodes: grammar.nodes,
  };
  cachedGrammars.set(language, loaded);
  return loaded;
}
