/**
 * The external names a repository's source imports, per ecosystem, read from the import
 * relations of its committed target: relative imports, the standard libraries and the
 * repository's own modules and packages are left out.
 */
import type { FileListing, TargetReader } from "../store/reader.ts";
import type { Ecosystem, ImportedNames } from "./types.ts";
import { npmPackageName } from "./npm.ts";

/** Python's standard library (`sys.stdlib_module_names`, 3.11, public names). */
const PYTHON_STDLIB = new Set(
  `__future__ __main__ abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit
audioop base64 bdb binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code
codecs codeop collections colorsys compileall concurrent configparser contextlib contextvars copy
copyreg crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest
email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch fractions ftplib
functools gc genericpath getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html http
idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3 linecache
locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib msvcrt
multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os
ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath
pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re
readline reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil
signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants
sre_parse ssl stat statistics string stringprep struct subprocess sunau symtable sys sysconfig
syslog tabnanny tarfile telnetlib tempfile termios textwrap this threading time timeit tkinter
token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types typing
unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg winsound wsgiref
xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo _thread _io _collections_abc`
    .split(/\s+/),
);

/** Rust path roots that are not crates of the registry. */
const RUST_ROOTS = new Set([
  "crate",
  "self",
  "super",
  "std",
  "core",
  "alloc",
  "proc_macro",
  "test",
]);

const ECOSYSTEM_OF: Record<string, Ecosystem> = {
  python: "pypi",
  typescript: "npm",
  tsx: "npm",
  javascript: "npm",
  go: "go",
  rust: "cargo",
};

/**
 * The package-level names each file's imports could name (before the repository's own modules
 * are left out), by the file's content hash and language: a file's imports are a function of
 * its bytes and language, so a refresh reads the import rows of changed files only (on sympy
 * every file's cost ~100 ms per refresh). Bounded; content-addressed, so never stale.
 */
const CANDIDATES = new Map<string, readonly (readonly [Ecosystem, string])[]>();
const CANDIDATES_MAX = 200_000;

/** The external import names of a committed repository target (`files`: its file listing). */
export function importedNames(reader: TargetReader, files: FileListing): ImportedNames {
  const names: ImportedNames = {
    npm: new Map(),
    pypi: new Map(),
    go: new Map(),
    cargo: new Map(),
  };
  // The file list is read once (by path, so each name keeps the first path that imports it); a
  // file's import rows are read only when its content is new to this process.
  const local = localNamesOf(files.paths);
  for (let i = 0; i < files.ids.length; i++) {
    const language = files.languages[i];
    const ecosystem = language ? ECOSYSTEM_OF[language] : undefined;
    if (!ecosystem) continue;
    const key = `${files.hashes[i]}\0${language}`;
    let candidates = CANDIDATES.get(key);
    if (!candidates) {
      const found = new Map<string, readonly [Ecosystem, string]>();
      for (const module of reader.importModules(files.ids[i])) {
        const name = candidateName(ecosystem, module);
        if (name !== null) found.set(name, [ecosystem, name]);
      }
      candidates = [...found.values()];
      if (CANDIDATES.size >= CANDIDATES_MAX) CANDIDATES.clear();
      CANDIDATES.set(key, candidates);
    }
    for (const [ecosystem, name] of candidates) {
      if (!isLocal(ecosystem, name, local) && !names[ecosystem].has(name)) {
        names[ecosystem].set(name, files.paths[i]);
      }
    }
  }
  return names;
}

/**
 * `localNames` of the last path lists seen, by the list itself: a refresh that changed files'
 * contents only (most do) lists the same paths, whose local names need not be made again.
 */
const LOCAL_NAMES = new Map<string, ReturnType<typeof localNames>>();
const LOCAL_NAMES_MAX = 4;

function localNamesOf(paths: string[]): ReturnType<typeof localNames> {
  const key = paths.join("\0");
  let local = LOCAL_NAMES.get(key);
  if (!local) {
    local = localNames(paths);
    if (LOCAL_NAMES.size >= LOCAL_NAMES_MAX) LOCAL_NAMES.delete(LOCAL_NAMES.keys().next().value!);
    LOCAL_NAMES.set(key, local);
  }
  return local;
}

/**
 * The package-level name an import of an ecosystem names, or null when it cannot be external
 * (relative, the standard library, not a package path); the repository's own names are left out
 * by `isLocal`.
 */
function candidateName(ecosystem: Ecosystem, module: string): string | null {
  switch (ecosystem) {
    case "pypi": {
      if (module.startsWith(".")) return null;
      const top = module.split(".")[0];
      return !top || PYTHON_STDLIB.has(top) ? null : top;
    }
    case "npm":
      return npmPackageName(module);
    case "go":
      // The standard library has no dot in its first element.
      return module.split("/")[0].includes(".") ? module : null;
    case "cargo": {
      const top = module.replace(/^::/, "").split("::")[0];
      return !top || RUST_ROOTS.has(top) || !/^[A-Za-z_]\w*$/.test(top) ? null : top;
    }
  }
}

/** Whether a candidate name is one of the repository's own modules, packages or crates. */
function isLocal(
  ecosystem: Ecosystem,
  name: string,
  local: ReturnType<typeof localNames>,
): boolean {
  switch (ecosystem) {
    case "pypi":
      return local.python.has(name);
    case "npm":
      return local.npm.has(name);
    case "go":
      return false;
    case "cargo":
      return local.rust.has(name);
  }
}

/** The repository's own top-level Python modules and packages, package names and crates. */
function localNames(paths: Iterable<string>) {
  const python = new Set<string>();
  const npm = new Set<string>();
  const rust = new Set<string>();
  // The repository's own package names are added from its package.json files by the caller.
  for (const path of paths) {
    if (path.endsWith(".py") || path.endsWith(".pyi")) {
      const parts = path.split("/");
      python.add(parts[parts.length - 1].replace(/\.pyi?$/, ""));
      for (const part of parts.slice(0, -1)) python.add(part);
    }
    if (path.endsWith(".rs")) {
      // `src/foo.rs` and `src/foo/mod.rs` are modules of the crate, and crates of a workspace.
      const parts = path.split("/");
      for (const part of parts) rust.add(part.replace(/\.rs$/, "").replace(/-/g, "_"));
    }
  }
  return { python, npm, rust };
}

/** Adds the repository's own package.json names to its local npm names. */
export function withPackageNames(
  names: ImportedNames,
  ownNames: Iterable<string>,
): ImportedNames {
  for (const name of ownNames) names.npm.delete(name);
  return names;
}
