/**
 * Statically evident receiver types, read from the committed text of the
 * enclosing definition: `x = new T()`, `x: T`, `x = T(...)`, `x := &T{}`,
 * `var x T`, a Go method receiver `func (x *T)`. Pure: text in, type names out.
 */

/** Where a receiver's type may be written: the definition's signature and its text up to the use. */
export interface ReceiverSite {
  family: string;
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
  switch (site.family) {
    case "js":
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
    case "java":
    case "kotlin":
    case "csharp":
      patterns.push(
        {
          regex: new RegExp(`\\b(${IDENT})(?:<[^>]*>)?\\s+${v}\\s*[=;,)]`, "g"),
          constructed: false,
        },
        { regex: new RegExp(`\\b${v}\\s*=\\s*new\\s+(${TYPE})`, "g"), constructed: false },
      );
      break;
    default:
      return null;
  }
  // The last assignment before the use wins; the signature is the earliest binding.
  let best: { at: number; type: ReceiverType } | null = null;
  const sources = [site.signature ?? "", site.text];
  sources.forEach((source, index) => {
    for (const { regex, constructed } of patterns) {
      for (const match of source.matchAll(regex)) {
        const name = match[match.length - 1] ?? match[1];
        const typeName = match[1] && site.family === "rust" && match[2] ? match[1] : name;
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
  family: string;
  attribute: string;
  classText: string;
  fieldSignature: string | null;
}): ReceiverType | null {
  const a = options.attribute.replace(/\$/g, "\\$");
  if (options.fieldSignature) {
    const typed = new RegExp(`\\b${a}\\??\\s*:\\s*(${TYPE})`).exec(options.fieldSignature);
    if (typed) return { name: typed[1], constructed: false };
    const created = new RegExp(`=\\s*new\\s+(${TYPE})`).exec(options.fieldSignature);
    if (created) return { name: created[1], constructed: false };
  }
  const self = options.family === "python" ? "self" : "this";
  const patterns = options.family === "python"
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
 * Where a name is bound as a parameter or local variable in a function's text
 * (lines from the definition's first line up to the use): the latest binding
 * before the use, else the parameter; null when the name is not local.
 */
export function localBinding(options: {
  family: string;
  lines: string[];
  name: string;
  useLineOffset: number;
}): { line: number; column: number; parameter: boolean } | null {
  const { family, lines, name } = options;
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return null;
  const n = name.replace(/\$/g, "\\$");
  let patterns: RegExp[];
  let header: RegExp;
  /** The first patterns of each list are plain assignments. */
  let assignmentPatterns = 2;
  if (family === "python") {
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
  } else if (family === "js") {
    header = new RegExp(
      `(?:[(,]\\s*(?:\\.\\.\\.)?|^\\s*(?:async\\s+)?)(${n})\\s*[?:=,)]|\\b(${n})\\s*=>`,
    );
    // Declarations: braces are blocks, so no depth rule; block scoping is not modelled.
    assignmentPatterns = 0;
    patterns = [
      new RegExp(`\\b(?:const|let|var)\\s+(${n})\\b`),
      new RegExp(`\\b(?:const|let|var)\\s*[{[][^=]*?\\b(${n})\\b[^=]*[}\\]]\\s*=`),
      new RegExp(`\\bcatch\\s*\\(\\s*(${n})\\b`),
    ];
  } else if (family === "go") {
    header = new RegExp(`[(,]\\s*(${n})\\s+[\\w*.\\[\\]]`);
    assignmentPatterns = 0;
    patterns = [
      new RegExp(`\\b(${n})\\s*(?:,\\s*\\w+\\s*)*:=`),
      new RegExp(`,\\s*(${n})\\s*:=`),
      new RegExp(`\\bvar\\s+(${n})\\b`),
    ];
  } else {
    return null;
  }
  // Indices ("d") give the column of the captured name itself.
  header = new RegExp(header.source, "d");
  patterns = patterns.map((pattern) => new RegExp(pattern.source, "d"));
  const columnOf = (match: RegExpExecArray): number => {
    const indices = match.indices!;
    return (indices[1] ?? indices[2])![0] + 1;
  };
  // The header runs from the definition's first line to where its body starts.
  const bodyOpens = family === "python" ? /\)\s*(->[^:]*)?:|:\s*(#.*)?$/ : /\{|=>/;
  let headerEnd = 0;
  while (headerEnd < Math.min(lines.length - 1, 30) && !bodyOpens.test(lines[headerEnd])) {
    headerEnd++;
  }
  let found: { line: number; column: number; parameter: boolean } | null = null;
  for (let i = 0; i <= headerEnd && i < lines.length; i++) {
    const match = header.exec(lines[i]);
    if (!match) continue;
    found = { line: i, column: columnOf(match), parameter: true };
    break;
  }
  // Assignments count only at bracket depth 0 (not `name=value` arguments of a call) and
  // before the use's line (`x = x + 1` uses the previous binding); loop and `as` targets
  // bind on their own line.
  let depth = 0;
  for (let i = headerEnd + 1; i <= options.useLineOffset && i < lines.length; i++) {
    const line = lines[i];
    const depthAtStart = depth;
    const code = line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/#.*$|\/\/.*$/, "");
    for (const char of code) {
      if ("([{".includes(char)) depth++;
      else if (")]}".includes(char)) depth = Math.max(0, depth - 1);
    }
    for (const [index, pattern] of patterns.entries()) {
      const assignment = index < assignmentPatterns;
      if (assignment && (depthAtStart > 0 || i === options.useLineOffset)) continue;
      const match = pattern.exec(line);
      if (!match) continue;
      // The latest binding before (or on) the use line wins.
      found = { line: i, column: columnOf(match), parameter: false };
      break;
    }
  }
  return found;
}
