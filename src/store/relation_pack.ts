/**
 * The relations of one file packed into one BLOB: a string table (kinds,
 * targets, receivers, modules, aliases and owner symbol ids, most used first)
 * and one row of varints per relation in source order. One file's relations
 * are read together or not at all, so a row costs about eight bytes instead of
 * a table row and three index entries.
 */
import { ByteReader, ByteWriter } from "./packing.ts";
import type { RelationRow } from "./records.ts";

const FORMAT = 1;
/** The owner differs from the previous row's (it follows: 0 for none, else its index + 1). */
const NEW_OWNER = 1;
const HAS_RECEIVER = 2;
const HAS_MODULE = 4;
const HAS_ALIAS = 8;
/** The site spans more than the target's name on one line (else its end is implied). */
const HAS_SPAN = 16;
const FLAG_BITS = 32;

/** A file's relations as stored: the packed rows, their distinct targets and their count. */
export interface PackedRelations {
  data: Uint8Array;
  targets: string[];
  count: number;
}

/** Packs relation rows (kept in the given order). */
export function packRelations(rows: readonly RelationRow[]): PackedRelations {
  const uses = new Map<string, number>();
  const use = (value: string | null) => {
    if (value !== null) uses.set(value, (uses.get(value) ?? 0) + 1);
  };
  const targets = new Set<string>();
  for (const row of rows) {
    use(row.kind);
    use(row.target);
    use(row.from_symbol);
    use(row.receiver);
    use(row.module);
    use(row.alias);
    targets.add(row.target);
  }
  const strings = [...uses.entries()].sort((a, b) => b[1] - a[1]).map(([value]) => value);
  const index = new Map(strings.map((value, i) => [value, i]));
  const out = new ByteWriter();
  out.uint(FORMAT);
  out.uint(strings.length);
  for (const value of strings) out.string(value);
  out.uint(rows.length);
  let line = 0;
  let owner: string | null = null;
  for (const row of rows) {
    const flags = (row.from_symbol !== owner ? NEW_OWNER : 0) |
      (row.receiver !== null ? HAS_RECEIVER : 0) | (row.module !== null ? HAS_MODULE : 0) |
      (row.alias !== null ? HAS_ALIAS : 0) |
      (row.end_line === row.start_line && row.end_col === row.start_col + row.target.length
        ? 0
        : HAS_SPAN);
    out.uint(index.get(row.kind)! * FLAG_BITS + flags);
    out.uint(index.get(row.target)!);
    if (row.from_symbol !== owner) {
      out.uint(row.from_symbol === null ? 0 : index.get(row.from_symbol)! + 1);
      owner = row.from_symbol;
    }
    if (row.receiver !== null) out.uint(index.get(row.receiver)!);
    if (row.module !== null) out.uint(index.get(row.module)!);
    if (row.alias !== null) out.uint(index.get(row.alias)!);
    out.uint(zigzag(row.start_line - line));
    line = row.start_line;
    out.uint(row.start_col);
    if (flags & HAS_SPAN) {
      out.uint(zigzag(row.end_line - row.start_line));
      out.uint(row.end_col);
    }
  }
  return { data: out.finish(), targets: [...targets], count: rows.length };
}

/**
 * The relations of a packed BLOB, in stored order; with `keep`, only rows
 * whose string-table fields pass it (decided before a row is built).
 */
export function unpackRelations(
  data: Uint8Array,
  keep?: (row: { kind: string; target: string; fromSymbol: string | null }) => boolean,
): RelationRow[] {
  const input = new ByteReader(data);
  const format = input.uint();
  if (format !== FORMAT) throw new RangeError(`packed relations: unknown format ${format}`);
  const strings: string[] = new Array(input.uint());
  for (let i = 0; i < strings.length; i++) strings[i] = input.string();
  const count = input.uint();
  const rows: RelationRow[] = [];
  let line = 0;
  let fromSymbol: string | null = null;
  for (let i = 0; i < count; i++) {
    const head = input.uint();
    const flags = head % FLAG_BITS;
    const kind = strings[(head - flags) / FLAG_BITS];
    const target = strings[input.uint()];
    if (flags & NEW_OWNER) {
      const at = input.uint();
      fromSymbol = at === 0 ? null : strings[at - 1];
    }
    const receiver = flags & HAS_RECEIVER ? strings[input.uint()] : null;
    const module = flags & HAS_MODULE ? strings[input.uint()] : null;
    const alias = flags & HAS_ALIAS ? strings[input.uint()] : null;
    line += unzigzag(input.uint());
    const startCol = input.uint();
    const spans = (flags & HAS_SPAN) !== 0;
    const endLine = spans ? line + unzigzag(input.uint()) : line;
    const endCol = spans ? input.uint() : startCol + target.length;
    if (keep && !keep({ kind, target, fromSymbol })) continue;
    rows.push({
      kind,
      from_symbol: fromSymbol,
      target,
      receiver,
      module,
      alias,
      start_line: line,
      start_col: startCol,
      end_line: endLine,
      end_col: endCol,
    });
  }
  return rows;
}

/**
 * The relations of a packed BLOB whose target is one of `targets`, in stored
 * order, with `keep` deciding among those: what `unpackRelations` with a
 * filter on the target gives, but the string table is not decoded — a string
 * is compared as bytes with the wanted names, and decoded only when a kept row
 * holds it (a file names thousands of strings; a walk wants a few rows of it).
 */
export function unpackRelationsTargeting(
  data: Uint8Array,
  targets: ReadonlySet<string>,
  keep?: (row: { kind: string; target: string; fromSymbol: string | null }) => boolean,
): RelationRow[] {
  return unpackMatching(data, targets, "target", keep);
}

/**
 * The relations of a packed BLOB written inside one symbol (its owner id), in
 * stored order: what `unpackRelations` with a filter on the owner gives, the
 * other rows' strings left undecoded.
 */
export function unpackRelationsFrom(data: Uint8Array, symbolId: string): RelationRow[] {
  return unpackMatching(data, new Set([symbolId]), "owner");
}

/**
 * The relations of a packed BLOB of one kind (a file's imports), in stored order: what
 * `unpackRelations` with a filter on the kind gives, the other rows' strings left undecoded.
 */
export function unpackRelationsOfKind(data: Uint8Array, kind: string): RelationRow[] {
  return unpackMatching(data, new Set([kind]), "kind");
}

/** The rows whose target (owner, kind) is one of `wanted`, decoding only their strings. */
function unpackMatching(
  data: Uint8Array,
  wanted: ReadonlySet<string>,
  field: "target" | "owner" | "kind",
  keep?: (row: { kind: string; target: string; fromSymbol: string | null }) => boolean,
): RelationRow[] {
  const input = new ByteReader(data);
  const format = input.uint();
  if (format !== FORMAT) throw new RangeError(`packed relations: unknown format ${format}`);
  const count = input.uint();
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  const bytesOf = wantedBytes(wanted);
  // 1: a wanted string; 0: not.
  const isWanted = new Uint8Array(count);
  let any = false;
  for (let i = 0; i < count; i++) {
    const length = input.uint();
    const start = input.skip(length);
    starts[i] = start;
    ends[i] = start + length;
    const candidates = bytesOf.get(length);
    if (candidates && sameAsAny(data, start, candidates)) {
      isWanted[i] = 1;
      any = true;
    }
  }
  if (!any) return [];
  const strings: (string | undefined)[] = new Array(count);
  const string = (i: number): string =>
    strings[i] ??= decoder.decode(data.subarray(starts[i], ends[i]));
  const rowCount = input.uint();
  const rows: RelationRow[] = [];
  let line = 0;
  let owner = 0;
  for (let i = 0; i < rowCount; i++) {
    const head = input.uint();
    const flags = head % FLAG_BITS;
    const kindAt = (head - flags) / FLAG_BITS;
    const targetAt = input.uint();
    if (flags & NEW_OWNER) owner = input.uint();
    const receiverAt = flags & HAS_RECEIVER ? input.uint() : -1;
    const moduleAt = flags & HAS_MODULE ? input.uint() : -1;
    const aliasAt = flags & HAS_ALIAS ? input.uint() : -1;
    line += unzigzag(input.uint());
    const startCol = input.uint();
    const spans = (flags & HAS_SPAN) !== 0;
    const endLine = spans ? line + unzigzag(input.uint()) : line;
    const endColAt = spans ? input.uint() : -1;
    const match = field === "target"
      ? isWanted[targetAt]
      : field === "kind"
      ? isWanted[kindAt]
      : owner !== 0 && isWanted[owner - 1];
    if (!match) continue;
    const kind = string(kindAt);
    const target = string(targetAt);
    const fromSymbol = owner === 0 ? null : string(owner - 1);
    if (keep && !keep({ kind, target, fromSymbol })) continue;
    rows.push({
      kind,
      from_symbol: fromSymbol,
      target,
      receiver: receiverAt < 0 ? null : string(receiverAt),
      module: moduleAt < 0 ? null : string(moduleAt),
      alias: aliasAt < 0 ? null : string(aliasAt),
      start_line: line,
      start_col: startCol,
      end_line: endLine,
      end_col: endColAt < 0 ? startCol + target.length : endColAt,
    });
  }
  return rows;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The UTF-8 bytes of each wanted name, by byte length. */
function wantedBytes(targets: ReadonlySet<string>): Map<number, Uint8Array[]> {
  const out = new Map<number, Uint8Array[]>();
  for (const target of targets) {
    const bytes = encoder.encode(target);
    const list = out.get(bytes.length);
    if (list) list.push(bytes);
    else out.set(bytes.length, [bytes]);
  }
  return out;
}

/**
 * Whether the bytes at `start` are one of `candidates` (a loop, not `some`: a closure made per
 * string of a wanted length was most of what a walk's unpacking allocated).
 */
function sameAsAny(data: Uint8Array, start: number, candidates: Uint8Array[]): boolean {
  for (let i = 0; i < candidates.length; i++) {
    if (sameBytes(data, start, candidates[i])) return true;
  }
  return false;
}

function sameBytes(data: Uint8Array, start: number, bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (data[start + i] !== bytes[i]) return false;
  return true;
}

/** The distinct targets of a packed BLOB (its postings, when a file's rows are replaced). */
export function packedTargets(data: Uint8Array): string[] {
  return [...new Set(unpackRelations(data).map((row) => row.target))];
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}
