/** Where the daemon's socket lives, and binding it so that only its user can connect. */
import { dirname, join, resolve } from "node:path";
import { defaultCacheDirectory } from "../store/cache_directory.ts";

/**
 * The socket path: `--socket`, else `$SEXTANT_SOCKET`, else
 * `$XDG_RUNTIME_DIR/sextant/sextant.sock`, else `<cache dir>/run/sextant.sock`.
 */
export function socketPath(explicit?: string, cacheDirectory?: string): string {
  if (explicit) return resolve(explicit);
  const fromEnv = Deno.env.get("SEXTANT_SOCKET");
  if (fromEnv) return resolve(fromEnv);
  const runtime = Deno.env.get("XDG_RUNTIME_DIR");
  if (runtime) return join(runtime, "sextant", "sextant.sock");
  return join(cacheDirectory ?? defaultCacheDirectory(), "run", "sextant.sock");
}

/** Why the daemon cannot listen; the message is meant for a person. */
export class SocketUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SocketUnavailable";
  }
}

/** True when something accepts connections on the socket. */
export async function socketAnswers(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Listens on a Unix socket with mode 0600 in a directory only the user can
 * enter (created 0700 when missing). Refuses when a daemon answers there;
 * replaces a stale socket left by a dead one; never removes anything else.
 */
export async function listenOnSocket(path: string): Promise<Deno.UnixListener> {
  const directory = dirname(path);
  Deno.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const info = Deno.statSync(directory);
  const uid = Deno.uid();
  if (uid !== null && info.uid !== uid) {
    throw new SocketUnavailable(`Socket directory '${directory}' belongs to another user`);
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new SocketUnavailable(
      `Socket directory '${directory}' is open to other users (mode ${
        (info.mode & 0o777).toString(8)
      }); use a directory with mode 0700`,
    );
  }
  let existing: Deno.FileInfo | null = null;
  try {
    existing = Deno.lstatSync(path);
  } catch { /* free */ }
  if (existing) {
    if (!existing.isSocket) {
      throw new SocketUnavailable(`'${path}' exists and is not a socket; not replacing it`);
    }
    if (await socketAnswers(path)) {
      throw new SocketUnavailable(`A daemon is already listening on '${path}'`);
    }
    // Nobody answers: a daemon died without cleaning up.
    Deno.removeSync(path);
  }
  const listener = Deno.listen({ transport: "unix", path });
  Deno.chmodSync(path, 0o600);
  return listener;
}
