/**
 * A parse Worker. Its only permission is reading the repository root (the
 * grammar bytes arrive by message): it cannot write, run, or reach the network.
 */
/// <reference lib="deno.worker" />
import { Language, type Node, Parser, Query } from "web-tree-sitter";
import { join } from "node:path";
import { closeSync, fstatSync, openSync } from "node:fs";
import { CONFINED_OPEN_FLAGS, type OpenedFile, readOpened } from "./confined.ts";
import { sha256Hex } from "../engine/hash.ts";
import {
  type ExtractionGrammar,
  extractStructure,
  extractText,
  looksMinified,
  parseForExtraction,
} from "./extract.ts";
import { fileRows } from "./file_rows.ts";
import { heapBound } from "./heap.ts";
import { lowerThreadPriority } from "./thread_priority.ts";
import type {
  FileIdentity,
  FileRows,
  ParseJob,
  ParseReply,
  SkipReason,
  WorkerGrammar,
} from "./parse_types.ts";

/**
 * The Worker's start message. Grammars come with the first job of their
 * language (`ParseJob.grammar`): a Worker holds only those it parses.
 */
export interface WorkerInit {
  type: "init";
  /** web-tree-sitter's core, compiled once per process (`WorkerGrammar.module` says why). */
  core: WebAssembly.Module;
  textChunking: Record<string, "headings" | "lines">;
  /** The nice value this Worker's thread takes before any job (Linux; the pool grants `setPriority`). */
  nice?: number;
}

/**
 * The first message of a Worker another thread started for the pool (`ParseWorkerHandle`): from
 * then on every message comes, and every answer goes, through this port.
 */
export interface WorkerPort {
  type: "port";
  port: MessagePort;
}

interface LoadedGrammar {
  parser: Parser;
  grammar: ExtractionGrammar;
}

/** Collects this Worker's garbage once its heap passes `HEAP_MARK` (`heap.ts`). */
const boundHeap = heapBound();

/** Milliseconds one parse may take before the file is kept as text (the pool's timeout is 30 s). */
const PARSE_BUDGET_MS = 10_000;

/**
 * Grammar modules by the bytes they were compiled from. web-tree-sitter's `Language.load` takes
 * bytes only, and its loader hands them to `WebAssembly.instantiate`: for bytes the pool sent
 * compiled, that answers with an instance of the pool's module (`WorkerGrammar.module`) instead
 * of compiling them again.
 */
const COMPILED = new WeakMap<Uint8Array, WebAssembly.Module>();
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate =
  ((source: BufferSource | WebAssembly.Module, imports?: WebAssembly.Imports) => {
    const module = source instanceof Uint8Array ? COMPILED.get(source) : undefined;
    return module
      ? Promise.resolve({ module, instance: new WebAssembly.Instance(module, imports) })
      : instantiate(source as BufferSource, imports);
  }) as typeof WebAssembly.instantiate;

let init: WorkerInit | null = null;
let ready: Promise<void> | null = null;
const grammars = new Map<string, WorkerGrammar>();
const loaded = new Map<string, Promise<LoadedGrammar>>();

function grammarFor(language: string): Promise<LoadedGrammar> | null {
  const spec = grammars.get(language);
  if (!spec) return null;
  let entry = loaded.get(language);
  if (!entry) {
    entry = (async () => {
      COMPILED.set(spec.wasm, spec.module);
      const lang = await Language.load(spec.wasm);
      const parser = new Parser();
      parser.setLanguage(lang);
      const query = new Query(lang, spec.query);
      return { parser, grammar: { query, rules: spec.rules, nodes: spec.nodes } };
    })();
    loaded.set(language, entry);
  }
  return entry;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** A Worker's answer to one job: the reply, and the file it read, if it opened one. */
export interface WorkerReply {
  reply: ParseReply;
  opened: OpenedFile | null;
}

/**
 * Sent once a file's bytes are read and its grammar loaded, as its parse begins: what a timeout
 * or crash would interrupt.
 */
export interface WorkerRead {
  type: "read";
  id: number;
  file: FileIdentity;
  opened: OpenedFile;
}

/** The Worker has started (its parser runtime is loaded) and takes jobs. */
export interface WorkerReady {
  type: "ready";
}

/** The pool's word that the Worker may close the descriptor of the file it last read. */
export interface WorkerRelease {
  type: "release";
}

/**
 * A grammar sent ahead of any job of its language (`ParsePool.warm`): loaded and its query
 * compiled while the Worker waits, so its first job of that language parses at once.
 */
export interface WorkerWarm {
  type: "grammar";
  grammar: WorkerGrammar;
}

/** The last file opened, its descriptor open until the pool has checked where it lies. */
let held: OpenedFile | null = null;

function release(): void {
  if (held === null) return;
  try {
    closeSync(held.fd);
  } catch {
    // already closed
  }
  held = null;
}

/**
 * Reads one file of the root through a descriptor, judged by what was opened
 * (a regular file, one link, within the size limit), never by a path checked
 * earlier: a directory on the way may be swapped for a symlink at any instant.
 * The pool then confirms, from the kernel's record of the open descriptor,
 * that the file lies at this path inside the root (`confirmOpened`, `confined.ts`).
 */
function readFile(job: ParseJob): { bytes: Uint8Array; mtimeMs: number } | ParseReply {
  if (job.path.split("/").some((part) => part === ".." || part === "." || part === "")) {
    return skipped(job, "symlink_escape", "outside the repository root");
  }
  let fd: number;
  try {
    fd = openSync(join(job.root, job.path), CONFINED_OPEN_FLAGS);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return skipped(job, "symlink_escape", "outside the repository root");
    }
    if ((error as { code?: string }).code === "ELOOP") {
      return skipped(job, "symlink", "a symlink is never indexed");
    }
    return skipped(job, "unreadable", (error as Error).message);
  }
  held = { fd, dev: -1, ino: -1 };
  try {
    const info = fstatSync(fd);
    held = { fd, dev: info.dev, ino: info.ino };
    if (!info.isFile()) return skipped(job, "not_a_file", "not a regular file");
    if (info.nlink > 1) return skipped(job, "hard_link", "a file with more than one hard link");
    if (info.size > job.maxFileSize) {
      return skipped(
        job,
        "oversize",
        `${info.size} bytes exceeds max_file_size ${job.maxFileSize}`,
      );
    }
    // Read to the end (the file may have grown since the stat), never past the limit.
    const bytes = readOpened(fd, info.size, job.maxFileSize);
    if (bytes === null) {
      return skipped(job, "oversize", `more than ${job.maxFileSize} bytes (max_file_size)`);
    }
    return { bytes, mtimeMs: Math.trunc(info.mtimeMs) };
  } catch (error) {
    return skipped(job, "unreadable", (error as Error).message);
  }
}

function parseFile(job: ParseJob): Promise<ParseReply> | ParseReply {
  const read = readFile(job);
  return "status" in read ? read : parseBytes(job, read.bytes, read.mtimeMs);
}

async function parseBytes(job: ParseJob, bytes: Uint8Array, mtimeMs: number): Promise<ParseReply> {
  const hash = sha256Hex(bytes);
  if (job.knownHash === hash) {
    return { id: job.id, status: "unchanged", hash, size: bytes.length, mtimeMs };
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    return skipped(job, "binary", "NUL byte in the first 8 KiB");
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return skipped(job, "not_utf8", "not valid UTF-8");
  }
  // The committed text has no byte-order mark; chunk byte offsets count from after it.
  let body = bytes;
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    body = bytes.subarray(3);
  }
  const lineCount = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const grammar = job.language ? grammarFor(job.language) : null;
  const minified = grammar !== null && looksMinified(text);
  const loaded = grammar && !minified ? await grammar : null;
  // The parse of these bytes begins: the pool's timeout counts from here (and names the bytes).
  if (held) {
    post(
      {
        type: "read",
        id: job.id,
        file: { size: bytes.length, mtimeMs, hash },
        opened: held,
      } satisfies WorkerRead,
    );
  }
  // Minified files and parses that run out of time are kept as search-only text.
  let fallback: string | null = null;
  if (minified) {
    fallback = "minified or generated (very long lines): indexed as search-only text";
  } else if (loaded) {
    const { parser, grammar: extraction } = loaded;
    const deadline = performance.now() + PARSE_BUDGET_MS;
    const tree = parseForExtraction(parser, text, {
      rules: extraction.rules,
      progressCallback: () => performance.now() > deadline,
    });
    if (tree) {
      try {
        const output = extractStructure({
          tree,
          text,
          path: job.path,
          grammar: extraction,
          packageRoot: job.packageRoot,
        });
        return {
          id: job.id,
          status: "parsed",
          hash,
          size: bytes.length,
          mtimeMs,
          lineCount,
          capability: "graph",
          rows: fileRows({ output, text, bytes: body, root: ownParse(tree.rootNode, text) }),
        };
      } finally {
        tree.delete();
      }
    }
    parser.reset();
    fallback = `limit: parsing stopped after ${
      PARSE_BUDGET_MS / 1000
    } s; indexed as search-only text`;
  }
  const chunking = (job.language && init?.textChunking[job.language]) || "lines";
  const output = extractText({ text, path: job.path, chunking });
  if (fallback) output.diagnostics.push(fallback);
  return {
    id: job.id,
    status: "parsed",
    hash,
    size: bytes.length,
    mtimeMs,
    lineCount,
    capability: "search",
    rows: fileRows({ output, text, bytes: body }),
  };
}

/**
 * The root of a tree parsed from `text` itself, or null for a tree of a
 * repaired copy (`parseForExtraction`): grep parses the committed text, so only
 * its own parse's statement ranges are stored. A repair keeps the length.
 */
function ownParse(root: Node, text: string): Node | null {
  return root.text === text.slice(root.startIndex, root.endIndex) ? root : null;
}

function transferables(rows: FileRows): ArrayBuffer[] {
  const buffers = [rows.text.buffer, rows.relations.data.buffer];
  if (rows.regions) buffers.push(rows.regions.buffer);
  for (const chunk of rows.chunks) buffers.push(chunk.vector.buffer);
  return [...new Set(buffers)] as ArrayBuffer[];
}

function skipped(job: ParseJob, reason: SkipReason, message: string): ParseReply {
  return { id: job.id, status: "skipped", reason, message };
}

/** Where answers go: the Worker's parent, or the port it was given (`WorkerPort`). */
let post = (message: unknown, transfer: Transferable[] = []) => self.postMessage(message, transfer);

self.onmessage = (
  event: MessageEvent<WorkerPort | WorkerInit | WorkerRelease | WorkerWarm | ParseJob>,
) => {
  const message = event.data;
  if ("type" in message && message.type === "port") {
    const port = message.port;
    post = (reply, transfer = []) => port.postMessage(reply, transfer);
    port.onmessage = receive;
    return;
  }
  return receive(event as MessageEvent<WorkerInit | WorkerRelease | WorkerWarm | ParseJob>);
};

async function receive(
  event: MessageEvent<WorkerInit | WorkerRelease | WorkerWarm | ParseJob>,
): Promise<void> {
  const message = event.data;
  release();
  if ("type" in message) {
    if (message.type === "init") {
      init = message;
      if (message.nice !== undefined) lowerThreadPriority(message.nice);
      const core = message.core;
      ready = Parser.init(
        {
          // Emscripten's hook: the core is instantiated from the process's module, not compiled.
          instantiateWasm(
            imports: WebAssembly.Imports,
            done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
          ) {
            const instance = new WebAssembly.Instance(core, imports);
            done(instance, core);
            return instance.exports;
          },
        } as Parameters<typeof Parser.init>[0],
      );
      // A job's time counts from here: never the Worker's own start (a job waiting on a failed
      // start fails at `await ready`).
      const started = () => post({ type: "ready" } satisfies WorkerReady);
      ready.then(started, started);
    } else if (message.type === "grammar") {
      const { language } = message.grammar;
      grammars.set(language, message.grammar);
      // A failure here is the first job's to report (it awaits the same load).
      ready?.then(() => grammarFor(language)).catch(() => {});
    }
    return;
  }
  const job = message;
  if (job.grammar) grammars.set(job.grammar.language, job.grammar);
  let reply: ParseReply;
  try {
    await ready;
    reply = await parseFile(job);
  } catch (error) {
    reply = {
      id: job.id,
      status: "failed",
      stage: "parse",
      message: (error as Error)?.message ?? String(error),
    };
  }
  // Every reply names the file it read (whatever became of it), for the pool to confirm.
  // The packed bytes move to the writer's thread instead of being copied.
  post(
    { reply, opened: held } satisfies WorkerReply,
    reply.status === "parsed" ? transferables(reply.rows) : [],
  );
  // After the reply: the writer has the rows while this Worker collects.
  boundHeap();
}
