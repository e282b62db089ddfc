/**
 * Reading a file of a repository so that no interleaving reads outside it.
 *
 * A path checked and then read can lead elsewhere by the time of the read: a
 * directory on the way may be swapped for a symlink to an outside directory
 * at any instant (rename-exchange in a loop), and a check repeated after the
 * read can be fooled the same way. So a file is opened first, judged by what
 * was opened (the descriptor's own stat: a regular file with one link), and
 * confirmed by where the kernel says that open file lies: `/proc/self/fd/<fd>`
 * names the very file opened, by its current path, whatever symlinks the open
 * went through. Only a file lying at its own path inside the root is read.
 *
 * `/proc/self/fd` is Linux, and Deno lets only a thread with every permission
 * read it (a parse Worker cannot: its pool confirms for it). Without it the
 * path is checked again without following a symlink on the way, which narrows
 * the race but cannot close it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** A file a thread of this process holds open: its descriptor and its identity through it. */
export interface OpenedFile {
  fd: number;
  dev: number;
  ino: number;
}

/** Why a file read is not taken: it lies elsewhere, or changed while it was read. */
export interface Refusal {
  reason: "symlink_escape" | "symlink" | "hard_link" | "unreadable";
  message: string;
}

/**
 * Open flags for a file of a repository: read only, no wait on a FIFO, and no
 * symlink as the last component where the open honours O_NOFOLLOW (a Worker's
 * permission check may resolve the link first; the confirmation refuses it then).
 */
export const CONFINED_OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

let descriptorsKnown: boolean | null = null;

/** Whether this thread may read the kernel's record of its open descriptors. */
export function descriptorsReadable(): boolean {
  if (descriptorsKnown === null) {
    try {
      Deno.readDirSync("/proc/self/fd");
      descriptorsKnown = true;
    } catch {
      descriptorsKnown = false;
    }
  }
  return descriptorsKnown;
}

/**
 * Null when the open file `opened` (held open by some thread of this process)
 * lies at `path` inside `realRoot` (the root with its own symlinks resolved)
 * with one link; else why it is refused.
 */
export function confirmOpened(
  realRoot: string,
  path: string,
  opened: OpenedFile,
): Refusal | null {
  const expected = `${realRoot}/${path}`;
  let location: string;
  let info: Deno.FileInfo;
  try {
    if (descriptorsReadable()) {
      // The kernel's path of the open file, and the file itself (to be sure the descriptor is
      // the one that was read).
      location = Deno.readLinkSync(`/proc/self/fd/${opened.fd}`);
      info = Deno.statSync(`/proc/self/fd/${opened.fd}`);
    } else {
      location = plainPath(realRoot, path) ? expected : "";
      info = Deno.lstatSync(expected);
    }
  } catch (error) {
    return { reason: "unreadable", message: `cannot confirm the file read: ${error}` };
  }
  if (info.dev !== opened.dev || info.ino !== opened.ino) {
    return { reason: "unreadable", message: "the file changed while it was read" };
  }
  if (location === expected) {
    return (info.nlink ?? 1) > 1
      ? { reason: "hard_link", message: "a file with more than one hard link" }
      : null;
  }
  if (location.startsWith(`${realRoot}/`)) {
    // Another file of the root: the path is a symlink to it, or the file moved meanwhile.
    return isSymlink(expected)
      ? { reason: "symlink", message: "a symlink is never indexed" }
      : { reason: "unreadable", message: "the file moved while it was read" };
  }
  return {
    reason: "symlink_escape",
    message: "outside the repository root (a directory on its path became a symlink)",
  };
}

/**
 * The bytes of `path` inside `root` if it is a regular file with one link of
 * at most `maxBytes` bytes lying at that very path when read; null otherwise
 * (missing, a symlink, a link out of the root, anything else). For a thread
 * with every permission (the main thread, a refresh Worker).
 */
export function readConfined(
  root: string,
  path: string,
  options: { maxBytes: number },
): Uint8Array | null {
  return readConfinedFile(root, path, options)?.bytes ?? null;
}

/** `readConfined` with the mtime (whole milliseconds) the open file had when read. */
export function readConfinedFile(
  root: string,
  path: string,
  options: { maxBytes: number },
): { bytes: Uint8Array; mtimeMs: number } | null {
  if (path.split("/").some((part) => part === "" || part === "." || part === "..")) return null;
  let realRoot: string;
  let fd: number;
  try {
    realRoot = Deno.realPathSync(root);
    fd = openSync(`${realRoot}/${path}`, CONFINED_OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.nlink > 1 || info.size > options.maxBytes) return null;
    const bytes = readOpened(fd, info.size, options.maxBytes);
    if (bytes === null) return null;
    return confirmOpened(realRoot, path, { fd, dev: info.dev, ino: info.ino }) === null
      ? { bytes, mtimeMs: Math.trunc(info.mtimeMs) }
      : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** `readConfined` as UTF-8 text (null also when the bytes are not UTF-8). */
export function readConfinedText(
  root: string,
  path: string,
  options: { maxBytes: number },
): string | null {
  const bytes = readConfined(root, path, options);
  if (bytes === null) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Reads an open file to its end (it may have grown since `size` was seen),
 * never past `maxBytes`: null when it holds more.
 */
export function readOpened(fd: number, size: number, maxBytes: number): Uint8Array | null {
  let buffer = new Uint8Array(Math.min(size, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length > maxBytes) return null;
      const larger = new Uint8Array(Math.min(buffer.length * 2, maxBytes + 1));
      larger.set(buffer);
      buffer = larger;
    }
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  return length > maxBytes ? null : buffer.subarray(0, length);
}

function isSymlink(path: string): boolean {
  try {
    return Deno.lstatSync(path).isSymlink;
  } catch {
    return false;
  }
}

/** Every directory from the root to `path`, and `path` itself, is no symlink. */
function plainPath(realRoot: string, path: string): boolean {
  let current = realRoot;
  for (const part of path.split("/")) {
    current = `${current}/${part}`;
    if (Deno.lstatSync(current).isSymlink) return false;
  }
  return true;
}
