/**
 * Query analysis for search (pure): what an identifier, a phrase or a whole
 * issue text holds — weighted code terms, file paths with line numbers from
 * tracebacks, identifiers from quoted code — for the ranker to use.
 */
import { codeTerms, STOP_WORDS } from "./tokenizer.ts";

/** A query term with how much it should count. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** A file a query names (a traceback frame, a path in prose), with a line when given. */
export interface PathMention {
  /** As written, `\` turned to `/`, leading `./` dropped. */
  path: string;
  line: number | null;
  /** The function a traceback frame names (`in foo`), when given. */
  symbol: string | null;
}

export interface QueryAnalysis {
  /** Distinct terms, heaviest first. */
  terms: WeightedTerm[];
  /** Identifiers written as code (quoted, dotted, snake/camel case, called): symbol-name candidates. */
  identifiers: string[];
  paths: PathMention[];
  /** Directory or module hints (a conventional-commit scope such as `fix(async/unstable):`). */
  scopes: string[];
  /** True when the text looked like prose (several sentences) rather than a name or phrase. */
  prose: boolean;
}

/** Most of a query is read; beyond this the tail adds little and costs time. */
const MAX_QUERY_CHARS = 60_000;
const MAX_TERMS = 96;
/**
 * What a term is worth by where it appears: a term counts once per zone it
 * appears in (plus a little for repeats), so a word pasted forty times in a log
 * does not outweigh the title.
 */
export const ZONE_WEIGHTS = {
  title: 2,
  identifier: 2,
  prose: 1,
  code: 1,
  path: 1.5,
  repeat: 1,
};

/** English words too common in issue text to say anything about code. */
const PROSE_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "about above after again against am another anything anyway around back because before being " +
    "below between both came come comes cannot case cases currently does doing done down during " +
    "either else even ever every example expected following found further give given going gone " +
    "got here hers him his however instead issue itself know let lets made make makes many maybe " +
    "more most much must need needed needs new now off once one ones other others otherwise out " +
    "over own per please possible probably problem put quite rather really right said same see " +
    "seem seems seen since something still sure take thanks then thing things think though " +
    "through too try trying two under until up upon us via was way ways well went whether within " +
    "without work works working yes yet able actually already always anyone both bug com https http " +
    "www github org html thank hi hello would like run running ran"
  ).split(" "),
);

/** A line listing a package and its version (`pluggy   1.0.0`): environment noise, not code. */
const VERSION_LINE = /^\s*[\w.\-\[\]]+(?:\s+|==|>=)v?\d+(?:\.\d+)+\S*\s*$/;

/** Analyses a search query. */
export function analyzeQuery(text: string): QueryAnalysis {
  const input = (text.length > MAX_QUERY_CHARS ? text.slice(0, MAX_QUERY_CHARS) : text)
    .split("\n").filter((line) => !VERSION_LINE.test(line)).join("\n");
  const zones = new Map<string, Set<keyof typeof ZONE_WEIGHTS>>();
  const counts = new Map<string, number>();
  const add = (term: string, zone: keyof typeof ZONE_WEIGHTS) => {
    // Bare numbers are versions, counts and line numbers: line numbers are read from paths.
    if (STOP_WORDS.has(term) || PROSE_STOP_WORDS.has(term) || /^\p{N}+$/u.test(term)) return;
    if (!zones.has(term)) zones.set(term, new Set());
    zones.get(term)!.add(zone);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  };
  const identifiers = new Set<string>();
  const paths = pathMentions(input);
  const scopes = commitScopes(input);

  // Code spans (fenced blocks and `inline`) count as code; the rest as prose.
  const blocks: string[] = [];
  const prose = input.replace(/```[\s\S]*?(?:```|$)/g, (block) => {
    blocks.push(block.replace(/^```\w*|```$/g, ""));
    return " ";
  });
  const firstLine = input.split("\n", 1)[0];
  for (const term of codeTerms(firstLine)) add(term, "title");
  for (const block of blocks) {
    for (const word of codeWords(block)) identifiers.add(word);
    for (const term of codeTerms(block)) add(term, "code");
  }
  for (const match of prose.matchAll(/`([^`\n]+)`/g)) {
    for (const word of codeWords(match[1], true)) identifiers.add(word);
    for (const term of codeTerms(match[1])) add(term, "identifier");
  }
  for (const word of codeWords(prose)) identifiers.add(word);
  for (const match of prose.replace(/`/g, " ").matchAll(/[\p{L}\p{N}_$.:\-]+/gu)) {
    const word = match[0];
    const zone = isCodeLike(word) ? "identifier" : "prose";
    for (const term of codeTerms(word)) add(term, zone);
  }
  for (const mention of paths) {
    // Only the file and its folder: the rest of an absolute path is someone's machine.
    for (const term of codeTerms(mention.path.split("/").slice(-2).join("/"))) add(term, "path");
    if (mention.symbol) identifiers.add(mention.symbol);
  }
  for (const scope of scopes) for (const term of codeTerms(scope)) add(term, "path");

  const terms = [...zones.entries()]
    .map(([term, found]) => {
      let weight = ZONE_WEIGHTS.repeat * Math.log(counts.get(term)!);
      for (const zone of found) weight += ZONE_WEIGHTS[zone];
      return { term, weight };
    })
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_TERMS);
  return {
    terms,
    identifiers: [...identifiers].filter((word) => word.length > 2).slice(0, 64),
    paths,
    scopes,
    prose: /[.!?]\s+\p{Lu}/u.test(input) || input.split("\n").length > 2,
  };
}

/** True for a word written as code: snake_case, camelCase, dotted or `::` paths. */
function isCodeLike(word: string): boolean {
  const trimmed = word.replace(/^[.:\-]+|[.:\-]+$/g, "");
  return /[a-z0-9][A-Z]/.test(trimmed) || /\w_\w|^_\w/.test(trimmed) ||
    /[A-Za-z_]\w*(?:\.|::)[A-Za-z_]/.test(trimmed);
}

/** Identifier-like words of a text: the names an issue writes as code (all of them when quoted). */
function codeWords(text: string, quoted = false): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(\s*\()?/g)) {
    const word = match[0].replace(/\s*\($/, "");
    const called = match[1] !== undefined;
    if (!quoted && !called && !isCodeLike(word)) continue;
    for (const segment of word.split(/\.|::/)) {
      if (segment.length > 2 && !STOP_WORDS.has(segment.toLowerCase())) words.push(segment);
    }
  }
  return words;
}

const PATH =
  /(?:[A-Za-z]:)?[\w.\-/\\]*[\w\-]\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|scala|md|rst|toml|ya?ml|json)\b/g;

/** Paths a query names, with the line and function of traceback frames. */
export function pathMentions(text: string): PathMention[] {
  const found = new Map<string, PathMention>();
  const push = (raw: string, line: number | null, symbol: string | null) => {
    const path = raw.replaceAll("\\", "/").replace(/^\.\//, "");
    if (!path.includes("/") && !/^[\w\-]+\.\w+$/.test(path)) return;
    const key = `${path}:${line ?? ""}`;
    if (!found.has(key)) found.set(key, { path, line, symbol });
  };
  // Python: File "x/y.py", line 12, in name
  for (const m of text.matchAll(/File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?/g)) {
    push(m[1], Number(m[2]), m[3] && !m[3].startsWith("<") ? m[3] : null);
  }
  // JS / Go / pytest: path:line[:col]
  for (const m of text.matchAll(new RegExp(`(${PATH.source}):(\\d+)`, "g"))) {
    push(m[1], Number(m[2]), null);
  }
  for (const m of text.matchAll(PATH)) push(m[0], null, null);
  return [...found.values()].slice(0, 64);
}

/** The scope of a conventional-commit subject: `fix(async/unstable): …` → `async/unstable`. */
function commitScopes(text: string): string[] {
  const match = /^\s*[a-z]+\(([^)\n]{1,80})\)!?:/.exec(text);
  if (!match) return [];
  return match[1].split(/[,\s]+/).filter(Boolean);
}

/** Whether a repository path matches a mentioned path: equal, or sharing its trailing segments. */
export function pathMatchesMention(path: string, mention: string): number {
  const a = path.split("/");
  const b = mention.split("/").filter((s) => s !== "" && s !== "." && s !== "..");
  let shared = 0;
  while (
    shared < a.length && shared < b.length && a[a.length - 1 - shared] === b[b.length - 1 - shared]
  ) {
    shared++;
  }
  if (shared === 0) return 0;
  // A bare generic file name (`__init__.py`, `index.ts`) alone says little.
  if (shared === 1 && /^(__init__|index|mod|main|utils?|conftest)\./.test(a[a.length - 1])) {
    return 0;
  }
  return shared === a.length ? 1 : shared / a.length + (shared >= 2 ? 0.5 : 0);
}
