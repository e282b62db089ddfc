/**
 * The external names a repository's source imports, per ecosystem, read from the import
 * relations of its committed target: relative imports, the standard libraries and the
 * repository's own modules and packages are left out.
 */
import type { TargetReader } from "../store/reader.ts";
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

/** The external import names of a committed repository target. */
export function importedNames(reader: TargetReader): ImportedNames {
  const names: ImportedNames = {
    npm: new Map(),
    pypi: new Map(),
    go: new Map(),
    cargo: new Map(),
  };
  const paths = reader.paths();
  const local = localNames(paths);
  for (const relation of reader.relationsOfKinds(["imports"])) {
    const ecosystem = relation.language ? ECOSYSTEM_OF[relation.language] : undefined;
    const module = relation.module;
    if (!ecosystem || !module) continue;
    const name = externalName(ecosystem, module, local);
    if (name !== null && !names[ecosystem].has(name)) names[ecosystem].set(name, relation.path);
  }
  return names;
}

/** The package-level name an import of an ecosystem names, or null when it is not external. */
function externalName(
  ecosystem: Ecosystem,
  module: string,
  local: ReturnType<typeof localNames>,
): string | null {
  switch (ecosystem) {
    case "pypi": {
      if (module.startsWith(".")) return null;
      const top = module.split(".")[0];
      if (!top || PYTHON_STDLIB.has(top) || local.python.has(top)) return null;
      return top;
    }
    case "npm": {
      const name = npmPackageName(module);
      return name === null || local.npm.has(name) ? null : name;
    }
    case "go": {
      // The standard library has no dot in its first element.
      if (!module.split("/")[0].includes(".")) return null;
      return module;
    }
    case "cargo": {
      const top = module.replace(/^::/, "").split("::")[0];
      if (!top || RUST_ROOTS.has(top) || local.rust.has(top) || !/^[A-Za-z_]\w*$/.test(top)) {
        return null;
      }
      return top;
    }
  }
}

/** The repository's own top-level Python modules and packages, package names and crates. */
function localNames(paths: Set<string>) {
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
