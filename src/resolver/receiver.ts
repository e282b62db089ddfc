/**
 * Statically evident receiver types, read from the committed text of the
 * enclosing definition: `x = new T()`, `x: T`, `x = T(...)`, `x := &T{}`,
 * `var x T`, a Go method receiver `func (x *T)`. Pure: text in, type names out.
 */
import type { LocalsStyle, ReceiverStyle } from "./families.ts";

/** Where a receiver's type may be written: the definition's signature and its text up to the use. */
export interface ReceiverSite {
  style: ReceiverStyle;
  variable: string;
  /** Signature of the enclosing definition (parameters, Go receiver). */
  signature: string | null;
  /** Text of the enclosing definition from its first line up to the line of the use. */
  text: string;
}

/** A type name a variable holds at a use; `constructed` when seen as `T(...)` (a call that may not be a class). */
export interface ReceiverType {
  name: string;
  constructed: boolean;
}

const IDENT = "[A-Za-z_$][\\w$]*";
const TYPE = `${IDENT}(?:\\.${IDENT})*`;

/** The type of a local variable or parameter at a use, or null when not evident. */
export function receiverType(site: ReceiverSite): ReceiverType | null {
  if (!new RegExp(`^${IDENT}$`).test(site.variable)) return null;
  const v = site.variable.replace(/\$/g, "\\$");
  const patterns: { regex: RegExp; constructed: boolean }[] = [];
  switch (site.style) {
    case "ecmascript":
      patterns.push(
        {
          regex: new RegExp(
            `\\b${v}\\s*(?::\\s*${TYPE}(?:<[^=]*>)?)?\\s*=\\s*new\\s+(${TYPE})`,
            "g",
          ),
          constructed: false,
        },
        { regex: new RegExp(`(?:^|[^\\w$.])${v}\\??\\s*:\\s*(${TYPE})`, "g"), constructed: false },
      );
      break;
    case "python":
      patterns.push(
        { regex: new RegExp(`(?:^|[^\\w.])${v}\\s*:\\s*(${TYPE})`, "gm"), constructed: false },
        { regex: new RegExp(`(?:^|[^\\w.])${v}\\s*=\\s*(${TYPE})\\(`, "gm"), constructed: true },
        {
          regex: new RegExp(`\\bwith\\s+(${TYPE})\\([^\\n]*\\bas\\s+${v}\\b`, "g"),
          constructed: true,
        },
      );
      break;
    case "go":
      patterns.push(
        { regex: new RegExp(`\\b${v}\\s*:=\\s*&?(${TYPE})\\s*\\{`, "g"), constructed: false },
        { regex: new RegExp(`\\bvar\\s+${v}\\s+\\*?(${TYPE})`, "g"), constructed: false },
        { regex: new RegExp(`[(,]\\s*${v}\\s+\\*?(${TYPE})\\s*[,)]`, "g"), constructed: false },
      );
      break;
    case "rust":
      patterns.push(
        {
          regex: new RegExp(
            `\\blet\\s+(?:mut\\s+)?${v}\\s*(?::\\s*&?(?:mut\\s+)?(${IDENT}))?\\s*=\\s*(${IDENT})(?:::new\\b|\\s*\\{)`,
            "g",
          ),
          constructed: false,
        },
        {
          regex: new RegExp(`[(,]\\s*${v}\\s*:\\s*&?(?:mut\\s+)?(${IDENT})`, "g"),
          constructed: false,
        },
      );
      break;
    case "c_like":
      patterns.push(
        {
          regex: new RegExp(`\\b(${IDENT})(?:<[^>]*>)?\\s+${v}\\s*[=;,)]`, "g"),
          constructed: false,
        },
        { regex: new RegExp(`\\b${v}\\s*=\\s*new\\s+(${TYPE})`, "g"), constructed: false },
      );
      break;
  }
  // The last assignment before the use wins; the signature is the earliest binding.
  let best: { at: number; type: ReceiverType } | null = null;
  const sources = [site.signature ?? "", site.text];
  sources.forEach((source, index) => {
    for (const { regex, constructed } of patterns) {
      for (const match of source.matchAll(regex)) {
        const name = match[match.length - 1] ?? match[1];
        const typeName = match[1] && site.style === "rust" && match[2] ? match[1] : name;
        if (
          !typeName ||
          /^(const|let|var|return|await|new|typeof|void|any|unknown|string|number|boolean|object|int|str|bool|float|dict|list|None|self|this)$/
            .test(typeName)
        ) continue;
        const at = index * 1_000_000 + (match.index ?? 0);
        if (!best || at >= best.at) best = { at, type: { name: typeName, constructed } };
      }
    }
  });
  return best ? (best as { type: ReceiverType }).type : null;
}

/**
 * The type of an attribute assigned in a class (`self.x = T(...)`, `this.x = new T()`,
 * a field `x: T` / `x = new T()`), from the class text and its field signatures.
 */
export function attributeType(options: {
  style: ReceiverStyle | null;
  attribute: string;
  classText: string;
  fieldSignature: string | null;
}): ReceiverType | null {
  const a = options.attribute.replace(/\$/g, "\\$");
  if (options.fieldSignature) {
    const typed = new RegExp(`\\b${a}[?!]?\\s*:\\s*(${TYPE})`).exec(options.fieldSignature);
    if (typed) return { name: typed[1], constructed: false };
    const created = new RegExp(`=\\s*new\\s+(${TYPE})`).exec(options.fieldSignature);
    if (created) return { name: created[1], constructed: false };
  }
  const self = options.style === "python" ? "self" : "this";
  const patterns = options.style === "python"
    ? [
      { regex: new RegExp(`\\b${self}\\.${a}\\s*:\\s*(${TYPE})`, "g"), constructed: false },
      { regex: new RegExp(`\\b${self}\\.${a}\\s*=\\s*(${TYPE})\\(`, "g"), constructed: true },
    ]
    : [{
      regex: new RegExp(`\\b${self}\\.${a}\\s*=\\s*new\\s+(${TYPE})`, "g"),
      constructed: false,
    }];
  for (const { regex, constructed } of patterns) {
    const match = regex.exec(options.classText);
    if (match) return { name: match[1], constructed };
  }
  return null;
}

/**
 * Bracket depth at the start of each line of one function's body, from line
 * `start` on (lines before the body are never asked): filled as far as a use
 * needs and kept, so every name looked up in the function reads each line once.
 */
export interface BodyDepths {
  /** The first line (offset in the function) the depths count from; -1 before any. */
  start: number;
  /** `depths[k]`: the depth at the start of line `start + k`. */
  depths: number[];
}

/** One style's binding patterns of one name (compiled once, kept: they hold no state). */
interface NamePatterns {
  header: RegExp;
  patterns: RegExp[];
  /** The first patterns of each list are plain assignments. */
  assignmentPatterns: number;
  /** Patterns (by index) that bind a nested function's parameter. */
  parameterPatterns: ReadonlySet<number>;
}

/**
 * The names whose patterns are kept, used last at the end. Few: V8 compiles a pattern run twice
 * to machine code, which stays with the pattern, about 1 KB each. At 20k names the kept patterns'
 * code grew a process answering sympy by ~80 MB of heap that every full collection marked (live
 * heap 109 → 139 MB over 2,700 → 8,100 mixed requests in one process, `code` 46 → 82 MB); a walk
 * asks the same few hundred names over and over.
 */
const PATTERN_CACHE = new Map<string, NamePatterns>();
export const PATTERN_CACHE_SIZE = 1_000;

/** How many names' patterns are kept now (at most `PATTERN_CACHE_SIZE`). */
export function keptPatternNames(): number {
  return PATTERN_CACHE.size;
}

function namePatterns(style: LocalsStyle, name: string): NamePatterns {
  const key = `${style}\0${name}`;
  let found = PATTERN_CACHE.get(key);
  if (found) {
    PATTERN_CACHE.delete(key);
    PATTERN_CACHE.set(key, found);
    return found;
  }
  const n = name.replace(/\$/g, "\\$");
  let patterns: RegExp[];
  let header: RegExp;
  let assignmentPatterns = 2;
  let parameterPatterns = new Set<number>();
  if (style === "python") {
    header = new RegExp(`(?:[(,]|^)\\s*\\*{0,2}(${n})\\s*[:=,)]`);
    patterns = [
      new RegExp(`^\\s*(${n})\\s*(?::[^=\\n]+)?=(?!=)`),
      new RegExp(
        `^\\s*\\(?\\s*(?:\\*?\\w+\\s*,\\s*)*\\*?(${n})\\s*(?:,\\s*\\*?\\w+\\s*)*,?\\s*\\)?\\s*=(?!=)`,
      ),
      new RegExp(`\\bfor\\s+[\\w\\s,()]*?\\b(${n})\\b[\\w\\s,()]*\\s+in\\b`),
      new RegExp(`\\bas\\s+(${n})\\b`),
      new RegExp(`\\b(${n})\\s*:=`),
    ];
  } else if (style === "ecmascript") {
    header = new RegExp(
      `(?:[(,]\\s*(?:\\.\\.\\.)?|^\\s*(?:async\\s+)?)(${n})\\s*[?:=,)]|\\b(${n})\\s*=>`,
    );
    // Declarations: braces are blocks, so no depth rule; block scoping is not modelled.
    assignmentPatterns = 0;
    parameterPatterns = new Set([1, 2, 3]);
    patterns = [
      new RegExp(`\\b(?:const|let|var)\\s+(${n})\\b`),
      // Parameters of a nested arrow function or function expression in the body.
      new RegExp(
        `\\(\\s*(?:[\\w$]+\\s*(?:\\??:\\s*[^(),=]+)?,\\s*)*(?:\\.\\.\\.)?(${n})\\s*(?:\\??:\\s*[^(),=]+)?(?:,\\s*[^()]*)?\\)\\s*(?::\\s*[^=]+?)?\\s*=>`,
      ),
      new RegExp(`(?<![:\\w$.]\\s*)\\b(${n})\\s*=>`),
      new RegExp(`\\bfunction\\b[\\w$\\s]*\\([^)]*?\\b(${n})\\b\\s*[?:=,)]`),
      new RegExp(`\\b(?:const|let|var)\\s*[{[][^=]*?\\b(${n})\\b[^=]*[}\\]]\\s*=`),
      new RegExp(`\\bcatch\\s*\\(\\s*(${n})\\b`),
    ];
  } else {
    // Go: `name T` parameters, `:=` and `var` bindings.
    header = new RegExp(`[(,]\\s*(${n})\\s+[\\w*.\\[\\]]`);
    assignmentPatterns = 0;
    patterns = [
      new RegExp(`\\b(${n})\\s*(?:,\\s*\\w+\\s*)*:=`),
      new RegExp(`,\\s*(${n})\\s*:=`),
      new RegExp(`\\bvar\\s+(${n})\\b`),
    ];
  }
  // Indices ("d") give the column of the captured name itself.
  found = {
    header: new RegExp(header.source, "d"),
    patterns: patterns.map((pattern) => new RegExp(pattern.source, "d")),
    assignmentPatterns,
    parameterPatterns,
  };
  if (PATTERN_CACHE.size >= PATTERN_CACHE_SIZE) {
    PATTERN_CACHE.delete(PATTERN_CACHE.keys().next().value!);
  }
  PATTERN_CACHE.set(key, found);
  return found;
}

/**
 * Whether any line of a file could bind `name` as a parameter or local (some binding pattern
 * of the style matches a line holding it, wherever it stands): when not, `localBinding` finds
 * nothing in any function of the file. Only the line-pattern styles (Python, Go) are told;
 * ECMAScript parameters are read from the header's structure, so it always says true.
 */
export function mayBindLocally(style: LocalsStyle, text: string, name: string): boolean {
  if (style === "ecmascript") return true;
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return false;
  const { header, patterns } = namePatterns(style, name);
  // Each line holding the name, found by searching the text (not by visiting every line).
  for (let at = text.indexOf(name); at >= 0;) {
    const start = text.lastIndexOf("\n", at) + 1;
    const newline = text.indexOf("\n", at);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end);
    if (header.test(line) || patterns.some((pattern) => pattern.test(line))) return true;
    if (newline < 0) break;
    at = text.indexOf(name, end + 1);
  }
  return false;
}

/** The bracket depth after a line, from the depth at its start (strings and comments skipped). */
function depthAfter(depth: number, line: string): number {
  const code = line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/#.*$|\/\/.*$/, "");
  for (const char of code) {
    if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth = Math.max(0, depth - 1);
  }
  return depth;
}

/**
 * Where a name is bound as a parameter or local variable in a function's text
 * (lines from the definition's first line up to the use): the latest binding
 * before the use, else the parameter; null when the name is not local. With
 * `depths` (one per function), the bracket depths of its lines are kept for the
 * next name looked up in it.
 */
export function localBinding(options: {
  style: LocalsStyle;
  lines: string[];
  name: string;
  useLineOffset: number;
  depths?: BodyDepths;
}): { line: number; column: number; parameter: boolean } | null {
  const { style, lines, name } = options;
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return null;
  const { header, patterns, assignmentPatterns, parameterPatterns } = namePatterns(style, name);
  const columnOf = (match: RegExpExecArray): number => {
    const indices = match.indices!;
    return (indices[1] ?? indices[2])![0] + 1;
  };
  // The header runs from the definition's first line to where its body starts.
  const bodyOpens = style === "python" ? /\)\s*(->[^:]*)?:|:\s*(#.*)?$/ : /\{|=>/;
  let headerEnd = 0;
  while (headerEnd < Math.min(lines.length - 1, 30) && !bodyOpens.test(lines[headerEnd])) {
    headerEnd++;
  }
  // Assignments count only at bracket depth 0 (not `name=value` arguments of a call) and
  // before the use's line (`x = x + 1` uses the previous binding); loop and `as` targets
  // bind on their own line. The latest binding before (or on) the use line wins, so lines
  // are read from the use up; every pattern holds the name, so a line without it binds
  // nothing.
  const start = headerEnd + 1;
  let depths: BodyDepths | null = null;
  const depthAt = (i: number): number => {
    if (!depths) {
      depths = options.depths ?? { start, depths: [] };
      if (depths.start !== start) (depths.start = start, depths.depths = []);
    }
    const known = depths.depths;
    if (known.length === 0) known.push(0);
    while (known.length <= i - start) {
      const k = known.length;
      known.push(depthAfter(known[k - 1], lines[start + k - 1]));
    }
    return known[i - start];
  };
  const last = Math.min(options.useLineOffset, lines.length - 1);
  for (let i = last; i >= start; i--) {
    const line = lines[i];
    if (!line.includes(name)) continue;
    for (const [index, pattern] of patterns.entries()) {
      const assignment = index < assignmentPatterns;
      if (assignment && (i === options.useLineOffset || depthAt(i) > 0)) continue;
      const match = pattern.exec(line);
      if (!match) continue;
      return { line: i, column: columnOf(match), parameter: parameterPatterns.has(index) };
    }
  }
  if (style === "ecmascript") {
    // Only the parameter list itself: names in a return type or in a function type written
    // in an annotation (`): T =>`, `(cb: (x: T) => void)`) are not parameters.
    const at = jsParameter(lines.slice(0, headerEnd + 1).join("\n"), name);
    if (at === null) return null;
    const before = lines.slice(0, headerEnd + 1).join("\n").slice(0, at).split("\n");
    return {
      line: before.length - 1,
      column: before[before.length - 1].length + 1,
      parameter: true,
    };
  }
  for (let i = 0; i <= headerEnd && i < lines.length; i++) {
    const match = header.exec(lines[i]);
    if (match) return { line: i, column: columnOf(match), parameter: true };
  }
  return null;
}

/**
 * Offset in a JS/TS definition header of the parameter `name` (or null): the names at the top
 * level of the first parenthesized list (after any type parameters), or the single parameter of
 * `x => ...`; shorthand names of a destructured parameter (`{ a, b }`) count.
 */
function jsParameter(header: string, name: string): number | null {
  let angle = 0;
  let open = -1;
  for (let i = 0; i < header.length; i++) {
    const char = header[i];
    if (char === "<") angle++;
    else if (char === ">" && header[i - 1] !== "=") angle = Math.max(0, angle - 1);
    else if (angle > 0) continue;
    else if (char === "(") {
      open = i;
      break;
    } else if (char === "{") return null;
    else if (char === "=" && header[i + 1] === ">") {
      const single = /([A-Za-z_$][\w$]*)\s*$/.exec(header.slice(0, i));
      return single && single[1] === name ? single.index : null;
    }
  }
  if (open < 0) return null;
  // Walk the list: a name directly after `(` or `,` at depth 1 (or after `{`/`,` inside a
  // destructuring brace opened at a parameter position) is a parameter.
  const stack: string[] = [];
  let expectName = true;
  let destructuring = 0;
  for (let i = open; i < header.length; i++) {
    const char = header[i];
    if ("([{".includes(char)) {
      stack.push(char);
      if (char === "{" && expectName && stack.length === 2) destructuring = stack.length;
      expectName = stack.length === 1 || (destructuring > 0 && stack.length === destructuring);
      continue;
    }
    if (")]}".includes(char)) {
      if (destructuring === stack.length) destructuring = 0;
      stack.pop();
      if (stack.length === 0) return null;
      expectName = false;
      continue;
    }
    if (char === "<") {
      // A generic type in an annotation: skip to its end.
      let depth = 0;
      for (; i < header.length; i++) {
        if (header[i] === "<") depth++;
        else if (header[i] === ">" && header[i - 1] !== "=") depth--;
        if (depth === 0) break;
      }
      expectName = false;
      continue;
    }
    if (char === ",") {
      expectName = stack.length === 1 || (destructuring > 0 && stack.length === destructuring);
      continue;
    }
    if (/\s/.test(char) || (expectName && char === ".")) continue;
    if (/[A-Za-z_$]/.test(char)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(header.slice(i))![0];
      if (expectName) {
        const after = header.slice(i + word.length);
        const fits = destructuring > 0 && stack.length === destructuring
          ? /^\s*[,}=]/.test(after)
          : /^\s*[?:=,)]/.test(after);
        if (word === name && fits) return i;
      }
      i += word.length - 1;
      expectName = false;
      continue;
    }
    expectName = false;
  }
  return null;
}
