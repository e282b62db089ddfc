/**
 * What one parse reply means for a refresh, pure: a reply and a few facts in,
 * the writes to make and the counts it adds out (`replyOutcome`); the counts of
 * every reply folded into the refresh's tally (`tallyOutcomes`). The refresh
 * applies the writes; nothing here touches the target or the disk.
 */
import type { PlanAction, PlanEntry } from "../engine/plan.ts";
import type { ParseReply, SkipReason } from "./parse_types.ts";

/** A parsed reply: the file's new bytes and rows. */
export type ParsedReply = Extract<ParseReply, { status: "parsed" }>;

/** What the refresh knows about a file besides its reply. */
export interface ReplyFacts {
  /** The target held rows of the file before this refresh. */
  stored: boolean;
  /** The file is still on disk (asked only when the Worker could not read it). */
  present: boolean;
  /** The inventory's mtime of the file, when it listed one. */
  mtimeMs?: number;
  /** The inventory's size of the file, when it listed one. */
  size?: number;
}

/** One change to the target. */
export type TargetWrite =
  /** Replace every row of the file with the reply's. */
  | { op: "replace"; path: string; reply: ParsedReply; mtimeMs: number }
  | { op: "delete"; path: string }
  /** New stat data for unchanged bytes. */
  | { op: "touch"; path: string; size: number; mtimeMs: number }
  | {
    op: "record_error";
    path: string;
    stage: string;
    message: string;
    /** The bytes a parse ran out of time or memory on: not parsed again while they stay. */
    held?: HeldBytes;
  }
  | { op: "clear_error"; path: string }
  /** The bytes of a held failure, seen again under a new mtime. */
  | { op: "touch_error"; path: string; size: number; mtimeMs: number };

/** The bytes a held failure was recorded for (the refresh adds the fingerprint key). */
export interface HeldBytes {
  size: number;
  mtimeMs: number;
  contentHash: string | null;
}

/** Failure stages of a file's own bytes (out of time, or a Worker lost to it): held, not retried. */
export const HELD_STAGES: ReadonlySet<string> = new Set(["timeout", "crash"]);

/** The counts one reply adds to a refresh. */
export interface ReplyEffect {
  parsed: number;
  verifiedUnchanged: number;
  bytes: number;
  lines: number;
  /** The content hash of an added file (to pair working-tree moves by hash). */
  addedHash: string | null;
  /** The file's action in the final plan: a new one, null to drop it, absent to keep it. */
  finalAction?: PlanAction | null;
  /** A reason the file was skipped without ever being indexed. */
  skipped: SkipReason | null;
}

export interface ReplyOutcome {
  writes: TargetWrite[];
  effect: ReplyEffect;
  /** The effect counts once this many of the writes (in order) have succeeded. */
  effectAfter: number;
}

const NO_EFFECT: ReplyEffect = {
  parsed: 0,
  verifiedUnchanged: 0,
  bytes: 0,
  lines: 0,
  addedHash: null,
  skipped: null,
};

/** The writes and counts of one parse reply for its plan entry. */
export function replyOutcome(
  entry: PlanEntry,
  reply: ParseReply,
  facts: ReplyFacts,
): ReplyOutcome {
  const path = entry.path;
  switch (reply.status) {
    case "parsed": {
      const syntax = reply.rows.diagnostics.join("; ");
      if (reply.rows.failed && facts.stored) {
        // Too broken to trust: keep the last good rows and say why.
        return only({ op: "record_error", path, stage: "parse", message: syntax });
      }
      const writes: TargetWrite[] = [
        { op: "replace", path, reply, mtimeMs: facts.mtimeMs ?? reply.mtimeMs },
      ];
      if (entry.action === "rename" && entry.from) writes.push({ op: "delete", path: entry.from });
      if (reply.rows.failed) {
        writes.push({ op: "record_error", path, stage: "parse", message: syntax });
      } else if (syntax) {
        writes.push({ op: "record_error", path, stage: "syntax", message: syntax });
      } else {
        writes.push({ op: "clear_error", path });
      }
      return {
        writes,
        effect: {
          ...NO_EFFECT,
          parsed: 1,
          bytes: reply.size,
          lines: reply.lineCount,
          addedHash: entry.action === "add" ? reply.hash : null,
        },
        effectAfter: 1,
      };
    }
    case "unchanged":
      // New stat data for unchanged bytes; under `heldHash` the very bytes that failed, whose
      // failure stands (not retried).
      return {
        writes: [{
          op: entry.heldHash ? "touch_error" : "touch",
          path,
          size: reply.size,
          mtimeMs: facts.mtimeMs ?? reply.mtimeMs,
        }],
        effect: { ...NO_EFFECT, verifiedUnchanged: 1, finalAction: "unchanged" },
        effectAfter: 0,
      };
    case "skipped":
      if (reply.reason === "unreadable" && !facts.present) {
        // Gone since the inventory: a delete.
        return {
          writes: facts.stored ? [{ op: "delete", path }] : [],
          effect: { ...NO_EFFECT, finalAction: "delete" },
          effectAfter: facts.stored ? 1 : 0,
        };
      }
      if (facts.stored) {
        return only({ op: "record_error", path, stage: reply.reason, message: reply.message });
      }
      return { writes: [], effect: skippedEffect(reply.reason), effectAfter: 0 };
    case "failed": {
      const write: TargetWrite = {
        op: "record_error",
        path,
        stage: reply.stage,
        message: reply.message,
      };
      if (HELD_STAGES.has(reply.stage)) {
        // The bytes the Worker read; or, read by the pool after the failure, bytes the listing
        // saw too; else the listing's size and mtime without a hash.
        const file = reply.file;
        if (
          file &&
          (!reply.readAfter || (file.size === facts.size && file.mtimeMs === facts.mtimeMs))
        ) {
          write.held = { size: file.size, mtimeMs: file.mtimeMs, contentHash: file.hash };
        } else if (facts.size !== undefined && facts.mtimeMs !== undefined) {
          write.held = { size: facts.size, mtimeMs: facts.mtimeMs, contentHash: null };
        }
      }
      return only(write);
    }
  }
}

/** The counts of a never-stored file skipped for a reason (as a Worker's skip reply gives). */
export function skippedEffect(reason: SkipReason): ReplyEffect {
  return { ...NO_EFFECT, skipped: reason, finalAction: null };
}

function only(write: TargetWrite): ReplyOutcome {
  return { writes: [write], effect: NO_EFFECT, effectAfter: 0 };
}

/** A refresh's counts once every reply is in. */
export interface RefreshTally {
  parsed: number;
  verifiedUnchanged: number;
  bytes: number;
  lines: number;
  /** Files skipped, by reason: the inventory's skips, then those found while parsing. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Every file's action as it turned out (a planned update may prove unchanged). */
  finalActions: Map<string, PlanAction>;
  /** Content hashes of added files. */
  addedHashes: Map<string, string>;
}

/** Folds the effects of the replies (in arrival order) into the refresh's tally. */
export function tallyOutcomes(
  start: { plan: readonly PlanEntry[]; skipped: readonly { reason: SkipReason }[] },
  effects: readonly { path: string; effect: ReplyEffect }[],
): RefreshTally {
  const tally: RefreshTally = {
    parsed: 0,
    verifiedUnchanged: 0,
    bytes: 0,
    lines: 0,
    skipped: {},
    finalActions: new Map(start.plan.map((entry) => [entry.path, entry.action])),
    addedHashes: new Map(),
  };
  for (const { reason } of start.skipped) tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
  for (const { path, effect } of effects) {
    tally.parsed += effect.parsed;
    tally.verifiedUnchanged += effect.verifiedUnchanged;
    tally.bytes += effect.bytes;
    tally.lines += effect.lines;
    if (effect.addedHash !== null) tally.addedHashes.set(path, effect.addedHash);
    if (effect.finalAction === null) tally.finalActions.delete(path);
    else if (effect.finalAction !== undefined) tally.finalActions.set(path, effect.finalAction);
    if (effect.skipped) tally.skipped[effect.skipped] = (tally.skipped[effect.skipped] ?? 0) + 1;
  }
  return tally;
}
