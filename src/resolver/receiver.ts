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
