/**
 * Turns a configured server command into an executable on this machine, or refuses it. A
 * command is a name looked up on PATH or an absolute path to an executable file; neither may
 * lie inside a repository of the workspace (Sextant never runs a repository's own code), and
 * PATH entries that are relative or inside a repository are skipped.
 */
import { isAbsolute, join, sep } from "node:path";

export interface ResolvedCommand {
  /** The path spawned (as found: a rustup proxy decides by the name it was started as). */
  executable: string;
  /** Its real path, after symlinks. */
  realPath: string;
  args: string[];
}

export interface ResolveOptions {
  /** The PATH to search (the daemon's own). */
  path: string;
  /** Real paths of the workspace's repository roots. */
  repositoryRoots: string[];
  /** Names the error message (`lsp.python.command`). */
  key: string;
}

/** Resolves `command[0]`; throws `Error` saying why it is refused. */
export function resolveCommand(command: string[], options: ResolveOptions): ResolvedCommand {
  const [name, ...args] = command;
  const at = `${options.key}[0]`;
  let executable: string;
  if (isAbsolute(name)) {
    const problem = executableProblem(name);
    if (problem) throw new Error(`${at}: '${name}' ${problem}`);
    executable = name;
  } else if (name.includes("/")) {
    throw new Error(
      `${at}: '${name}' is a relative path; give a name on PATH or an absolute path`,
    );
  } else {
    const found = searchPath(name, options);
    if (!found) throw new Error(`${at}: '${name}' is not an executable on PATH`);
    executable = found;
  }
  const realPath = Deno.realPathSync(executable);
  const inside = containingRoot(realPath, options.repositoryRoots);
  if (inside) {
    throw new Error(
      `${at}: '${name}' lies inside the repository ${inside}; a repository's own code is never run`,
    );
  }
  return { executable, realPath, args };
}

/** PATH without relative entries and entries inside a repository (for the server's environment). */
export function safeSearchPath(path: string, repositoryRoots: string[]): string {
  return path.split(":").filter((entry) => usableDirectory(entry, repositoryRoots)).join(":");
}

/** The repository root that holds a real path, or null. */
export function containingRoot(realPath: string, roots: string[]): string | null {
  for (const root of roots) {
    if (realPath === root || realPath.startsWith(root.endsWith(sep) ? root : root + sep)) {
      return root;
    }
  }
  return null;
}

function searchPath(name: string, options: ResolveOptions): string | null {
  for (const directory of options.path.split(":")) {
    if (!usableDirectory(directory, options.repositoryRoots)) continue;
    const candidate = join(directory, name);
    if (executableProblem(candidate) === null) return candidate;
  }
  return null;
}

function usableDirectory(directory: string, roots: string[]): boolean {
  if (directory === "" || !isAbsolute(directory)) return false;
  let real: string;
  try {
    real = Deno.realPathSync(directory);
  } catch {
    return false;
  }
  return containingRoot(real, roots) === null;
}

/** Why a path cannot be spawned, or null when it is an executable file. */
function executableProblem(path: string): string | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return "does not exist";
  }
  if (!info.isFile) return "is not a file";
  if (info.mode !== null && (info.mode & 0o111) === 0) return "is not executable";
  return null;
}
