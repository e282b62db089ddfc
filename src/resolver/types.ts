/** Values the resolver works on: symbols and relations as stored, tagged with their repository. */

/** A definition read from a repository target. */
export interface SymbolRecord {
  repo: string;
  path: string;
  language: string | null;
  id: string;
  name: string;
  qualified: string;
  kind: string;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
  signature: string | null;
  parentId: string | null;
  exported: boolean;
}

/**
 * A relation as its file wrote it: the target as written (never resolved at index time), the
 * receiver it was used on, and for imports the module and alias.
 */
export interface RelationRecord {
  repo: string;
  path: string;
  language: string | null;
  kind: string;
  fromSymbol: string | null;
  target: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
}

/**
 * The evidence that resolved a relation, strongest first: same file and lexical scope, an
 * import binding, module-path ownership, one unique definition in scope.
 */
export type Evidence = "same_file" | "import" | "module_path" | "unique_name";

export const EVIDENCE_LEVEL: Record<Evidence, 1 | 2 | 3 | 4> = {
  same_file: 1,
  import: 2,
  module_path: 3,
  unique_name: 4,
};

/** A definition that a relation may mean, and why. */
export interface Candidate {
  symbol: SymbolRecord;
  reason: string;
}

/** What one relation resolves to. */
export type Resolution =
  | { status: "resolved"; symbol: SymbolRecord; evidence: Evidence; note?: string }
  | { status: "ambiguous"; candidates: Candidate[]; reason: string }
  | { status: "external"; module: string; reason: string }
  | {
    status: "unresolved";
    reason: string;
    /** Set when the use names a whole module: its file (a package's `__init__`, an index). */
    moduleFile?: { repo: string; path: string; evidence: Evidence };
  };

/** Whether a resolution is proven (levels 1–3) or guessed (level 4). */
export function confidenceOf(evidence: Evidence): "exact" | "approximate" {
  return EVIDENCE_LEVEL[evidence] <= 3 ? "exact" : "approximate";
}

export { languageFamily } from "./families.ts";
