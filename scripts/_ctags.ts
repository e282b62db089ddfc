/**
 * universal-ctags as the reference for `extraction_quality.ts`: which ctags
 * language and kinds stand for each Sextant language, how to run it on a file
 * list, and how its tags are matched with Sextant's symbols.
 */

/** How one Sextant language is compared with ctags. */
export interface KindMapping {
  /** The ctags language forced on the files (`--language-force`). */
  ctagsLanguage: string;
  /** ctags long kind names that are functions, classes, methods or types. */
  ctagsKinds: string[];
  /** Sextant kinds compared with them. */
  sextantKinds: string[];
  /** ctags options defining the language when ctags has no parser for it (a regex baseline). */
  optlib?: string[];
  /** ctags names dropped (regex captures of keywords such as `class func`). */
  ignoreNames?: string[];
  /** ctags tags whose source line matches this regex are dropped. */
  ignoreLines?: string;
  /**
   * A regex a real declaration line matches (its keyword). ctags tags on other lines are
   * counted apart (`recall_on_declarations`): for ctags parsers that tag non-declarations.
   */
  declarationLine?: string;
  /** Why the sets differ, printed with the results. */
  note?: string;
}

/** ctags TypeScript tags `import { type X }` (also across lines) as an alias: not a definition. */
const IMPORTED_TYPE = "^\\s*(import\\b|type\\s+[\\w$]+\\s*(,|\\}|$))";

/** Words before a keyword: modifiers and attributes such as `@objc public` (POSIX ERE: `]` first). */
const MODIFIERS = "^[[:blank:]]*([]@A-Za-z_().[]+[[:blank:]]+)*";

/**
 * Per Sextant language: the ctags kinds and the Sextant kinds compared. Kinds
 * left out on both sides: variables, constants, fields, properties,
 * enumerators, packages/namespaces (except where ctags and Sextant both treat
 * them as a type-like container: Ruby modules, TypeScript namespaces), macros,
 * imports and aliases.
 */
export const KIND_MAPPINGS: Record<string, KindMapping> = {
  python: {
    ctagsLanguage: "Python",
    ctagsKinds: ["class", "function", "member"],
    sextantKinds: ["class", "function", "method"],
  },
  typescript: {
    ctagsLanguage: "TypeScript",
    ctagsKinds: [
      "class",
      "function",
      "method",
      "generator",
      "interface",
      "enum",
      "alias",
      "namespace",
    ],
    sextantKinds: ["class", "function", "method", "interface", "enum", "type", "module"],
    ignoreLines: IMPORTED_TYPE,
    note:
      "ctags' alias also tags `import { type X }`: alias tags on import lines are dropped (IMPORTED_TYPE).",
  },
  javascript: {
    ctagsLanguage: "JavaScript",
    ctagsKinds: ["class", "function", "method", "generator", "getter", "setter"],
    sextantKinds: ["class", "function", "method"],
  },
  go: {
    ctagsLanguage: "Go",
    ctagsKinds: ["func", "struct", "interface", "type", "talias", "methodSpec"],
    sextantKinds: ["function", "method", "struct", "interface", "type"],
    note: "ctags' func covers functions and methods; methodSpec is an interface method.",
  },
  rust: {
    ctagsLanguage: "Rust",
    ctagsKinds: ["function", "method", "struct", "enum", "interface", "typedef"],
    sextantKinds: ["function", "method", "struct", "enum", "trait", "type", "union"],
    note: "impl blocks, modules and macros are left out on both sides.",
  },
  java: {
    ctagsLanguage: "Java",
    ctagsKinds: ["class", "interface", "enum", "method", "annotation"],
    sextantKinds: ["class", "interface", "enum", "method", "constructor", "record", "annotation"],
    note: "ctags' method includes constructors.",
  },
  c: {
    ctagsLanguage: "C",
    ctagsKinds: ["function", "struct", "union", "enum", "typedef"],
    sextantKinds: ["function", "struct", "union", "enum", "type"],
    note: "ctags' prototypes are off by default, so declarations are not compared.",
  },
  cpp: {
    ctagsLanguage: "C++",
    ctagsKinds: ["function", "class", "struct", "union", "enum", "typedef"],
    sextantKinds: ["function", "method", "class", "struct", "union", "enum", "type"],
    note: "namespaces are left out; ctags' prototypes are off by default.",
  },
  c_sharp: {
    ctagsLanguage: "C#",
    ctagsKinds: ["class", "interface", "struct", "enum", "method"],
    sextantKinds: ["class", "interface", "struct", "enum", "method", "constructor", "record"],
  },
  ruby: {
    ctagsLanguage: "Ruby",
    ctagsKinds: ["class", "module", "method", "singletonMethod"],
    sextantKinds: ["class", "module", "method", "function"],
    note: "attr_* accessors and alias are left out on both sides.",
  },
  php: {
    ctagsLanguage: "PHP",
    ctagsKinds: ["class", "interface", "trait", "function"],
    sextantKinds: ["class", "interface", "trait", "enum", "function", "method"],
    note: "ctags' function covers functions and methods.",
  },
  kotlin: {
    ctagsLanguage: "Kotlin",
    ctagsKinds: ["class", "interface", "object", "method", "typealias"],
    sextantKinds: ["class", "interface", "object", "enum", "function", "method", "type"],
    ignoreNames: ["<lambda>"],
    declarationLine: "\\b(fun|class|object|interface|typealias)\\b",
    note:
      "ctags' Kotlin parser tags lambdas as methods named <lambda> (dropped) and lambda parameters and loop variables as methods (lines without a declaration keyword: see recall_on_declarations); unnamed `companion object`s are ctags' `Companion` objects (Sextant names their members after the class).",
  },
  swift: {
    ctagsLanguage: "SwiftRegex",
    ctagsKinds: ["function", "class", "struct", "enum", "protocol", "typealias"],
    sextantKinds: ["function", "method", "class", "struct", "enum", "protocol", "type"],
    optlib: [
      "--langdef=SwiftRegex",
      "--kinddef-SwiftRegex=f,function,functions",
      "--kinddef-SwiftRegex=c,class,classes",
      "--kinddef-SwiftRegex=s,struct,structs",
      "--kinddef-SwiftRegex=e,enum,enums",
      "--kinddef-SwiftRegex=p,protocol,protocols",
      "--kinddef-SwiftRegex=t,typealias,type aliases",
      `--regex-SwiftRegex=/${MODIFIERS}func[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/f/`,
      `--regex-SwiftRegex=/${MODIFIERS}(class|actor)[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\3/c/`,
      `--regex-SwiftRegex=/${MODIFIERS}struct[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/s/`,
      `--regex-SwiftRegex=/${MODIFIERS}enum[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/e/`,
      `--regex-SwiftRegex=/${MODIFIERS}protocol[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/p/`,
      `--regex-SwiftRegex=/${MODIFIERS}typealias[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/t/`,
    ],
    ignoreNames: ["func", "var", "let", "case", "subscript", "init", "deinit", "protocol"],
    note:
      "universal-ctags 5.9 has no Swift parser: the baseline is a line-regex ctags language (declarations at line start after modifiers/attributes; init/subscript/extension and operator functions not compared).",
  },
  scala: {
    ctagsLanguage: "ScalaRegex",
    ctagsKinds: ["method", "class", "trait", "object", "type"],
    sextantKinds: ["function", "method", "class", "trait", "object", "type", "enum"],
    optlib: [
      "--langdef=ScalaRegex",
      "--kinddef-ScalaRegex=m,method,methods",
      "--kinddef-ScalaRegex=c,class,classes",
      "--kinddef-ScalaRegex=t,trait,traits",
      "--kinddef-ScalaRegex=o,object,objects",
      "--kinddef-ScalaRegex=T,type,types",
      `--regex-ScalaRegex=/${MODIFIERS}def[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/m/`,
      `--regex-ScalaRegex=/${MODIFIERS}class[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/c/`,
      `--regex-ScalaRegex=/${MODIFIERS}trait[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/t/`,
      `--regex-ScalaRegex=/${MODIFIERS}object[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/o/`,
      `--regex-ScalaRegex=/${MODIFIERS}type[[:blank:]]+([A-Za-z_][A-Za-z0-9_]*)/\\2/T/`,
    ],
    ignoreNames: ["this"],
    note:
      "universal-ctags 5.9 has no Scala parser: the baseline is a line-regex ctags language (def/class/trait/object/type at line start after modifiers; operator methods not compared).",
  },
  bash: {
    ctagsLanguage: "Sh",
    ctagsKinds: ["function"],
    sextantKinds: ["function"],
  },
  lua: {
    ctagsLanguage: "Lua",
    ctagsKinds: ["function"],
    sextantKinds: ["function", "method"],
    declarationLine: "\\bfunction\\b\\s*[\\w.:]*\\s*\\(",
    note:
      'ctags names `function M.f` as `M.f` (compared by its last segment); its Lua parser also tags lines that only mention `function` (`require "plenary.functional"`, `t == "function"`): see recall_on_declarations; anonymous functions (`x = x or function() end`, `t[k] = function`) are not Sextant definitions.',
  },
};
KIND_MAPPINGS.tsx = {
  ...KIND_MAPPINGS.typescript,
  note: "ctags reads .tsx with its TypeScript parser (no JSX); alias tags on import lines dropped.",
};
KIND_MAPPINGS.csharp = KIND_MAPPINGS.c_sharp;
KIND_MAPPINGS.sh = KIND_MAPPINGS.bash;

/** One ctags tag or Sextant symbol, as compared. */
export interface Definition {
  path: string;
  /** Simple name (last segment). */
  name: string;
  kind: string;
  /** 1-based line ctags reports, or Sextant's start line. */
  line: number;
  /** Sextant only: lines at or after `line` where the name is written (`nameLines`). */
  nameLines?: number[];
  /** Sextant only: the qualified name. */
  qualified?: string;
  /** ctags only: the source line of the tag. */
  text?: string;
}

/**
 * ctags' made-up name for an unnamed definition: C/C++ `__anon1a2b3c4d` (structs, unions, enums,
 * classes; also qualified as `X::__anon…`), JavaScript `AnonymousFunction1a2b3c4d` (callbacks)
 * and PHP `AnonymousClass1a2b3c4d` (`new class`): nothing Sextant could name the same way.
 */
export function isAnonymous(name: string): boolean {
  return /(^|::|\.)(__anon|AnonymousFunction|AnonymousClass)[0-9a-f]*$/.test(name);
}

/**
 * The name as compared: whitespace removed, so ctags' `operator ()` and `operator ==`
 * match Sextant's `operator()` and `operator==`.
 */
export function comparableName(name: string): string {
  return name.replace(/\s+/g, "");
}

/** Runs ctags on the files of one language (paths relative to `root`); returns its tags. */
export async function runCtags(
  options: { root: string; paths: string[]; mapping: KindMapping },
): Promise<Definition[]> {
  const { root, paths, mapping } = options;
  if (paths.length === 0) return [];
  const args = [
    "--options=NONE",
    ...(mapping.optlib ?? []),
    `--language-force=${mapping.ctagsLanguage}`,
    "--output-format=json",
    "--fields=+nKzl",
    "-f",
    "-",
    "-L",
    "-",
  ];
  const child = new Deno.Command("ctags", {
    args,
    cwd: root,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(paths.join("\n") + "\n"));
  await writer.close();
  const out = await child.output();
  if (!out.success) {
    throw new Error(`ctags failed: ${new TextDecoder().decode(out.stderr).slice(0, 500)}`);
  }
  const kinds = new Set(mapping.ctagsKinds);
  const ignored = new Set(mapping.ignoreNames ?? []);
  const ignoredLines = mapping.ignoreLines ? new RegExp(mapping.ignoreLines) : null;
  const tags: Definition[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const tag = JSON.parse(line) as {
      _type: string;
      name: string;
      path: string;
      line?: number;
      kind?: string;
      pattern?: string;
    };
    if (tag._type !== "tag" || !tag.kind || !kinds.has(tag.kind) || !tag.line) continue;
    const name = lastSegment(tag.name);
    if (ignored.has(name)) continue;
    if (ignoredLines && ignoredLines.test((tag.pattern ?? "").replace(/^\/\^?/, ""))) continue;
    tags.push({
      path: tag.path.replace(/^\.\//, ""),
      name,
      kind: tag.kind,
      line: tag.line,
      text: (tag.pattern ?? "").replace(/^\/\^?/, "").replace(/\$?\/$/, ""),
    });
  }
  return tags;
}

/** `M.f`, `obj:m`, `A::B`, `Foo#bar`, `App\\Http` → the last segment; operators stay whole. */
export function lastSegment(name: string): string {
  if (!/^[\p{L}\p{N}_$]+(?:(?:::|[.:#\\])[\p{L}\p{N}_$]+)+$/u.test(name)) return name;
  const parts = name.split(/::|[.:#\\]/);
  return parts[parts.length - 1];
}

/**
 * Lines at or after `startLine` (1-based, up to `endLine`, at most 60 lines on) that contain
 * `name`: where ctags may report a definition whose node starts at its attributes or doc comment
 * (the name can also occur in an attribute before the declaration line).
 */
export function nameLines(
  lines: string[],
  options: { name: string; startLine: number; endLine: number },
): number[] {
  const last = Math.min(options.endLine, lines.length, options.startLine + 60);
  const found: number[] = [];
  for (let line = options.startLine; line <= last && found.length < 8; line++) {
    if (lines[line - 1]?.includes(options.name)) found.push(line);
  }
  return found;
}

export interface MatchResult {
  matched: { ctags: Definition; sextant: Definition }[];
  /** ctags definitions Sextant lacks (recall misses). */
  missing: Definition[];
  /** Sextant definitions ctags lacks (precision misses). */
  extra: Definition[];
}

/**
 * Pairs definitions one-to-one by path and name (whitespace removed: `comparableName`) where ctags' line lies within
 * `tolerance` lines of Sextant's start line or of a line in the definition
 * that writes its name (`nameLines`); closest first.
 */
export function matchDefinitions(
  ctags: Definition[],
  sextant: Definition[],
  tolerance: number,
): MatchResult {
  const byKey = new Map<string, Definition[]>();
  for (const def of sextant) {
    const key = `${def.path}\0${comparableName(def.name)}`;
    const list = byKey.get(key);
    if (list) list.push(def);
    else byKey.set(key, [def]);
  }
  const used = new Set<Definition>();
  const matched: MatchResult["matched"] = [];
  const missing: Definition[] = [];
  const distance = (tag: Definition, def: Definition) =>
    Math.min(
      Math.abs(tag.line - def.line),
      ...(def.nameLines ?? []).map((l) => Math.abs(tag.line - l)),
    );
  for (const tag of [...ctags].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line)) {
    const candidates = (byKey.get(`${tag.path}\0${comparableName(tag.name)}`) ?? [])
      .filter((def) => !used.has(def) && distance(tag, def) <= tolerance)
      .sort((a, b) => distance(tag, a) - distance(tag, b));
    if (candidates.length === 0) {
      missing.push(tag);
      continue;
    }
    used.add(candidates[0]);
    matched.push({ ctags: tag, sextant: candidates[0] });
  }
  return { matched, missing, extra: sextant.filter((def) => !used.has(def)) };
}
