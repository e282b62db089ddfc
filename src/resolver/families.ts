/**
 * Per-family resolver rules: one record per language family, so what differs between
 * languages is data the evidence levels read, and a misspelled family or language is a type
 * error rather than a branch that never runs.
 */
import { isLanguage, type Language } from "../indexer/languages.ts";

/**
 * Languages whose symbols may resolve each other: JavaScript, TypeScript and TSX are one
 * family; every other structured language is its own.
 */
export type Family = "ecmascript" | Exclude<Language, "javascript" | "typescript" | "tsx">;

/** How an import path is looked up (`modules.ts`). */
export type ModuleLookup = "ecmascript" | "python" | "go" | "rust" | "jvm" | "relative_file";

/** Which text patterns show a variable's type (`receiver.ts`). */
export type ReceiverStyle = "ecmascript" | "python" | "go" | "rust" | "c_like";

/** Which text patterns bind parameters and locals in a function (`receiver.ts`). */
export type LocalsStyle = "ecmascript" | "python" | "go";

/** What differs per family when a name is resolved. */
export interface FamilyRules {
  /** How import paths name files and packages. */
  modules: ModuleLookup;
  /** How a relative import is written: `.mod`, `..pkg` (Python) or `./x`, `../x` (paths). */
  relativeImports: "dots" | "paths";
  /**
   * Level 3, module-path ownership: the other files of a Go package, or of the directory (a
   * JVM package; C#'s global namespace), own the names a file leaves unbound.
   */
  packageScope: "go_package" | "directory" | null;
  /**
   * Where methods live when not inside their type's body: beside it in the Go package (its
   * receiver names the type), or in `impl` blocks of the same file (Rust).
   */
  methodsBesideType: "go_package" | "same_file" | null;
  /**
   * The name `import a.b.c` binds: its first segment (Python `a`), its last path segment (Go,
   * minus a `/vN` suffix and a `go-` prefix), or the module as written.
   */
  importBinds: "first_segment" | "last_path_segment" | "module";
  /** `from pkg import mod` may import a submodule rather than a definition (Python). */
  submoduleImports: boolean;
  /** A default import (`import X from "m"`) binds the module's `export default`. */
  defaultImports: boolean;
  /** Definitions declare type parameters in `<…>` after their name (`function f<T>`). */
  typeParameters: boolean;
  /** First segments that make a dotted path a module path of the crate (`crate::a::f`). */
  pathRoots: readonly string[];
  /** How variables show their type; null when none are read. */
  receivers: ReceiverStyle | null;
  /** How parameters and locals are bound; null when locals are not read. */
  locals: LocalsStyle | null;
  /**
   * A bare name inside a class body may mean a member of that class or of its bases, with an
   * implicit `this`/`self` (Java `other()`, Ruby `helper`); false where members are reached
   * only through `self.`/`this.` (Python, JavaScript) or there are no classes.
   */
  implicitReceiver: boolean;
}

/** The rules of a family that has no special ones. */
const PLAIN: FamilyRules = {
  modules: "relative_file",
  relativeImports: "paths",
  packageScope: null,
  methodsBesideType: null,
  importBinds: "module",
  submoduleImports: false,
  defaultImports: false,
  typeParameters: false,
  pathRoots: [],
  receivers: null,
  locals: null,
  implicitReceiver: false,
};

const JVM: FamilyRules = {
  ...PLAIN,
  modules: "jvm",
  packageScope: "directory",
  receivers: "c_like",
  implicitReceiver: true,
};

export const FAMILIES: Record<Family, FamilyRules> = {
  ecmascript: {
    ...PLAIN,
    modules: "ecmascript",
    defaultImports: true,
    typeParameters: true,
    receivers: "ecmascript",
    locals: "ecmascript",
  },
  python: {
    ...PLAIN,
    modules: "python",
    relativeImports: "dots",
    importBinds: "first_segment",
    submoduleImports: true,
    receivers: "python",
    locals: "python",
  },
  go: {
    ...PLAIN,
    modules: "go",
    packageScope: "go_package",
    methodsBesideType: "go_package",
    importBinds: "last_path_segment",
    receivers: "go",
    locals: "go",
  },
  rust: {
    ...PLAIN,
    modules: "rust",
    methodsBesideType: "same_file",
    pathRoots: ["crate", "self", "super"],
    receivers: "rust",
  },
  java: JVM,
  kotlin: JVM,
  scala: { ...JVM, receivers: null },
  c_sharp: { ...PLAIN, packageScope: "directory", receivers: "c_like", implicitReceiver: true },
  c: PLAIN,
  cpp: { ...PLAIN, implicitReceiver: true },
  ruby: { ...PLAIN, implicitReceiver: true },
  php: PLAIN,
  swift: { ...PLAIN, implicitReceiver: true },
  bash: PLAIN,
  lua: PLAIN,
};

/** The family of a stored language name, or null for text and unknown languages. */
export function languageFamily(language: string | null): Family | null {
  if (!isLanguage(language)) return null;
  if (language === "javascript" || language === "typescript" || language === "tsx") {
    return "ecmascript";
  }
  return language;
}

/** The rules of a language's family (the plain rules for text and unknown languages). */
export function familyRules(language: string | null): FamilyRules {
  const family = languageFamily(language);
  return family ? FAMILIES[family] : PLAIN;
}
