import { analyzeQuery, pathMatchesMention, type QueryAnalysis } from "../engine/query.ts";
import { codeTerms, compactIdentifier } from "../engine/tokenizer.ts";
import { HASH_MODEL_ID, hashVector } from "../engine/vector.ts";
import { WireError } from "../protocol/errors.ts";
import { LIMITS, type MethodParams } from "../protocol/methods.ts";
import type { Confidence, Envelope, ResultHit, SearchData, SourceKind } from "../protocol/types.ts";
import type { DefinitionSite, FileTable, TargetReader } from "../store/reader.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { lexicalMatches, LexicalScores, selectTerms } from "../search/lexical.ts";
import { lexicalStatistics } from "../search/visible_lexical.ts";
import type { PathRule } from "../workspace/visible.ts";
import { atMost, confidenceFeatures, confidenceOf } from "../search/confidence.ts";
import {
  isDocPath,
  type RankChunk,
  rankChunks,
  type RankedChunk,
  RANKING,
  type Strategy,
} from "../search/rank.ts";
import { nearestChunks, vectorIndexFor } from "../search/vector_index.ts";
import { embeddingConfig, embedTexts, providerModelId } from "../indexer/embeddings.ts";
import { sliceLines } from "../engine/lines.ts";
import { KeptBySize } from "../engine/kept.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { isOffset, issueCursor, PageFitter, readCursor } from "./paging.ts";
import { liveListing, liveScan } from "./live_scan.ts";
import { type DependencyRecord, loadDependencyState } from "../deps/mod.ts";

export type SearchParams = MethodParams<"search">;

/** The strategy when none is asked for (chosen by `deno task eval`). */
export const DEFAULT_STRATEGY: Strategy = "hybrid";
/** Lexical candidates kept for fusion, and nearest chunks asked of the vector scan. */
const LEXICAL_POOL = 800;
const VECTOR_POOL = 300;
/** File ids below this keep a request's answer to "may it be searched" in an array. */
const ANSWERED_IDS = 1 << 16;
/**
 * The cleared answer array kept between requests (handed out to one ranking at a time; a ranking
 * that throws keeps it, and the next allocates another).
 */
const spareAnswers = new KeptBySize<Uint8Array>(1);
/** A name defined in more places than this is too common to point at a file. */
const MAX_DEFINITIONS = 12;

interface RepositoryAnswer {
  ranked: (RankedChunk<Repository> & {
    /** Set for a chunk of a dependency package: the repository that imports it, and how. */
    dependency?: DependencySource;
  })[];
  limitations: string[];
}

/** A dependency package target searched for a repository that imports it. */
interface DependencySource {
  owner: Repository;
  record: DependencyRecord;
}

/**
 * Ranked chunks for an identifier, a phrase or a whole issue text:
 * weighted bm25 and hashing-vector cosine fused, with symbol-name, path,
 * mention and definition signals, grouped so one file does not flood the list.
 */
export async function search(
  scope: RequestScope,
  params: SearchParams,
): Promise<Envelope<SearchData>> {
  const { workspace } = scope;
  if (typeof params.query !== "string" || params.query.trim() === "") {
    throw new WireError("InvalidParams", "search needs a non-empty 'query'");
  }
  if (new TextEncoder().encode(params.query).length > LIMITS.queryBytes) {
    throw new WireError("LimitExceeded", `search 'query' exceeds ${LIMITS.queryBytes} bytes`);
  }
  const strategy = params.strategy ?? DEFAULT_STRATEGY;
  // No kind: the repository's own files, code and docs; `local`: its code; `doc`: its docs and
  // its dependencies'; `dependency`: the code of the packages it imports; `all`: everything.
  const kind = params.kind ?? null;
  const limit = params.limit ?? 10;
  const repos = scope.repositories;
  const states = repositoryStates(workspace, repos, scope);
  const binding = { action: "search", params: { ...params }, repositories: states };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);
  const analysis = analyzeQuery(params.query);
  const limitations: string[] = [];
  const backend = strategy === "hybrid" ? "fts+vector" : strategy === "vector" ? "vector" : "fts";
  const empty = (reason: string) =>
    envelope({
      action: "search",
      results: [],
      provenance: { backend, confidence: "weak" },
      repositories: states,
      limitations: [...limitations, reason],
    });
  if (analysis.terms.length === 0 && analysis.paths.length === 0) {
    return empty("the query has no searchable terms");
  }
  // `doc` is asked only when the kind depends on it (a path test per file and request).
  const wantsKind = (doc: () => boolean, dependency: boolean) =>
    kind === null ? !dependency : kind === "all" ||
      (kind === "doc" ? doc() : kind === "local" ? !doc() && !dependency : !doc() && dependency);
  const allowPath = (repo: Repository, path: string, language: string | null) =>
    scope.accepts(repo.name, path, language) &&
    wantsKind(() => isDocPath(path, language), false);
  // Dependency packages are seen at their path under the repository that imports them.
  const dependencyPath = (source: DependencySource, path: string) =>
    `${source.record.display}/${path}`;
  const dependencies = kind === "dependency" || kind === "doc" || kind === "all"
    ? repos.flatMap((owner) =>
      (loadDependencyState(owner.location)?.packages ?? []).filter((record) => !record.error)
        .map((record): DependencySource => ({ owner, record }))
    )
    : [];
  if (kind === "dependency" && dependencies.length === 0) {
    limitations.push(
      "no dependency of the repositories is indexed (refresh indexes the packages their source imports from node_modules, .venv, the Go module cache or the Cargo registry)",
    );
  }
  const ranked: RepositoryAnswer["ranked"] = [];
  const fallbacks: string[] = [];
  const providerProblems: string[] = [];
  const vectors = strategy === "lexical"
    ? null
    : await queryVector(workspace, params.query, analysis, providerProblems);
  const texts = new Map<string, string>();
  // Per repository, the generation its chunks were read at (null: it moved while they were).
  const chunkGenerations = new Map<Repository, number | null>();
  // Identifiers the query writes that some searched repository holds (by whole compact term).
  const seen = new Set<string>();
  for (const repo of repos) {
    const rule = scope.pathRule(repo.name);
    const answer = workspace.withReader(
      repo,
      (reader) =>
        rankRepository(reader, repo, { analysis, strategy, limit, allowPath, vectors, rule }),
    );
    if (answer.problem) {
      fallbacks.push(`${repo.name}: target ${answer.problem}`);
      const terms = analysis.terms.map((term) => term.term);
      const listing = await liveListing(repo);
      if (listing.problem !== null) fallbacks.push(`${repo.name}: not scanned: ${listing.problem}`);
      const scan = listing.problem !== null ? [] : liveScan(repo, listing, {
        terms,
        limit: offset + limit,
        pathFilter: (path) => allowPath(repo, path, null),
      });
      for (const [i, hit] of scan.entries()) {
        const c = hit.candidate;
        texts.set(`${repo.name}\0${c.path}`, hit.text);
        ranked.push({
          repo,
          file: { path: c.path, language: null },
          round: i,
          score: c.score,
          matchedShare: c.matchedShare,
          chunk: {
            id: -1,
            fileId: -1,
            path: c.path,
            startLine: c.startLine,
            endLine: c.endLine,
            kind: c.kind,
            symbolPath: null,
          },
        });
      }
      // The target is repaired in the background; this answer does not wait for it.
      workspace.repair(repo, answer.problem);
      continue;
    }
    ranked.push(...answer.value.ranked);
    chunkGenerations.set(repo, answer.value.chunkGeneration);
    limitations.push(...answer.value.limitations);
    for (const word of answer.value.seen) seen.add(word);
  }
  for (const source of dependencies) {
    const { owner, record } = source;
    const target: Repository = {
      name: `dep:${owner.name}:${record.id}`,
      root: record.root,
      location: {
        root: record.root,
        directory: record.database.replace(/\/[^/]*$/, ""),
        databasePath: record.database,
      },
    };
    // A caller who sees some paths of the owner sees a package only where they cover it (as the
    // resolver does), and its statistics are over that part only.
    const ownerRule = scope.pathRule(owner.name);
    const visibleInOwner = (path: string) =>
      !ownerRule ||
      (record.inRepository && scope.allowPath(owner.name, dependencyPath(source, path)));
    const allowDependency = (_: Repository, path: string, language: string | null) =>
      visibleInOwner(path) && scope.accepts(owner.name, dependencyPath(source, path), language) &&
      wantsKind(() => isDocPath(path, language), true);
    const rule: PathRule | null = ownerRule && {
      key: ownerRule.key === null ? null : `${ownerRule.key}\0${record.display}`,
      allow: visibleInOwner,
    };
    const answer = workspace.withReader(
      target,
      (reader) =>
        rankRepository(reader, target, {
          analysis,
          strategy,
          limit,
          allowPath: allowDependency,
          vectors,
          rule,
        }),
    );
    if (answer.problem) {
      limitations.push(
        `${owner.name}: dependency ${record.id} not searched (target ${answer.problem})`,
      );
      continue;
    }
    for (const entry of answer.value.ranked) ranked.push({ ...entry, dependency: source });
    chunkGenerations.set(target, answer.value.chunkGeneration);
  }
  // One repository keeps its order; several are merged round by round, best first.
  const merged = repos.length === 1 && dependencies.length === 0
    ? ranked
    : [...ranked].sort((a, b) => a.round - b.round || b.score - a.score);
  // Hits an order of magnitude below the best are noise, not a longer answer.
  const best = merged.reduce((top, entry) => Math.max(top, entry.score), 0);
  const ordered = merged.filter((entry) => entry.score >= best * RANKING.tailShare);
  const termSet = new Set(analysis.terms.map((term) => term.term));
  // The page's snippets, cut with one reader per repository: at most `limit` hits are built.
  const snippets = new Map<number, string>();
  const byRepository = new Map<Repository, number[]>();
  for (let at = offset; at < Math.min(ordered.length, offset + limit); at++) {
    const { repo, chunk } = ordered[at];
    const text = texts.get(`${repo.name}\0${chunk.path}`);
    if (text !== undefined) {
      snippets.set(at, sliceLines(text, chunk.startLine, chunk.endLine));
      continue;
    }
    const own = byRepository.get(repo);
    if (own) own.push(at);
    else byRepository.set(repo, [at]);
  }
  for (const [repo, positions] of byRepository) {
    workspace.withReader(repo, (reader) => {
      // A chunk's start byte is of the text it was cut from: used while that text is committed.
      const same = reader.generation() === chunkGenerations.get(repo);
      const lines = reader.fileLines(positions.map((at) => {
        const { chunk } = ordered[at];
        return {
          path: chunk.path,
          start: chunk.startLine,
          end: chunk.endLine,
          startByte: same ? chunk.startByte : undefined,
        };
      }));
      positions.forEach((at, i) => snippets.set(at, lines[i] ?? ""));
    });
  }
  const hitOf = (at: number): ResultHit => {
    const { chunk, repo, file, score, dependency } = ordered[at];
    const snippet = snippets.get(at) ?? "";
    const sourceKind: SourceKind = isDocPath(chunk.path, file.language)
      ? "doc"
      : dependency
      ? "dependency"
      : "local";
    return {
      repo: dependency ? dependency.owner.name : repo.name,
      path: dependency ? dependencyPath(dependency, chunk.path) : chunk.path,
      ...(dependency
        ? {
          dependency: {
            ecosystem: dependency.record.ecosystem,
            name: dependency.record.name,
            version: dependency.record.version,
            path: chunk.path,
          },
        }
        : {}),
      start_line: chunk.startLine,
      end_line: chunk.endLine,
      symbol: chunk.symbolPath,
      kind: chunk.kind,
      signature: null,
      language: file.language,
      source_kind: sourceKind,
      score: Math.round(score * 1000) / 1000,
      snippet,
      match_line: firstMatchingLine(snippet, termSet, chunk.startLine),
    };
  };
  // Hits are built (snippets cut) only for the page: at most `limit`, within the token budget.
  const fitter = new PageFitter({ limit, tokenBudget: params.token_budget });
  let end = offset;
  while (end < ordered.length && fitter.open && fitter.offer(hitOf(end))) end++;
  const results = fitter.results;
  const next = end < ordered.length ? end : null;
  const scanned = fallbacks.length > 0;
  const reasons = [...fallbacks, ...providerProblems];
  let confidence: Confidence = scanned ? "weak" : confidenceOf(ordered);
  // Identifiers written in the query that occur nowhere: the hits match parts of them at most.
  const absent = scanned ? [] : analysis.identifiers.filter((word) => !seen.has(word));
  if (absent.length > 0 && absent.length === analysis.identifiers.length && ordered.length > 0) {
    confidence = atMost(confidence, "candidate");
    limitations.push(
      `${
        absent.slice(0, 3).map((word) => `'${word}'`).join(", ")
      } occur(s) nowhere in the index: the hits match parts of the query only`,
    );
  }
  return envelope({
    action: "search",
    results,
    provenance: {
      backend: scanned
        ? "live-scan"
        : vectors?.provider
        ? backend.replace("vector", "embeddings")
        : backend,
      confidence,
      fallback_used: reasons.length > 0,
      fallback_reason: reasons.length > 0 ? reasons.join("; ") : null,
      fresh: !scanned,
    },
    repositories: states,
    limitations: [...new Set([...limitations, ...fitter.limitations])],
    truncated: next !== null,
    nextCursor: next === null ? null : issueCursor(binding, next),
    // What the confidence label was computed from, for calibration and for callers that rank.
    data: { confidence_features: confidenceFeatures(ordered) },
  });
}

/** The query's vectors: always the hashing one, and the provider's when it answered. */
interface QueryVectors {
  hashing: Float32Array;
  provider: { model: string; vector: Float32Array } | null;
  problems: string[];
  /** Set when some repository answered from provider vectors. */
  providerUsed?: boolean;
}

const providerQueryVectors = new Map<string, Float32Array>();

/** Vectors for a query; a provider failure is recorded in `problems` and leaves hashing. */
async function queryVector(
  workspace: Workspace,
  query: string,
  analysis: QueryAnalysis,
  problems: string[],
): Promise<QueryVectors> {
  const hashing = hashVector(analysis.terms.map((term) => [term.term, term.weight] as const));
  let config;
  try {
    config = embeddingConfig(workspace.config.raw);
  } catch (error) {
    problems.push((error as Error).message);
    return { hashing, provider: null, problems };
  }
  if (!config) return { hashing, provider: null, problems };
  const model = providerModelId(config);
  const key = `${config.endpoint}\0${model}\0${query}`;
  let vector = providerQueryVectors.get(key);
  if (!vector) {
    try {
      [vector] = await embedTexts(config, [query.slice(0, 8000)]);
    } catch (error) {
      problems.push(`${(error as Error).message}; hashing vectors used`);
      return { hashing, provider: null, problems };
    }
    providerQueryVectors.set(key, vector);
    if (providerQueryVectors.size > 256) {
      providerQueryVectors.delete(providerQueryVectors.keys().next().value!);
    }
  }
  return { hashing, provider: { model, vector }, problems };
}

function rankRepository(
  reader: TargetReader,
  repo: Repository,
  options: {
    analysis: QueryAnalysis;
    strategy: Strategy;
    limit: number;
    allowPath: (repo: Repository, path: string, language: string | null) => boolean;
    vectors: QueryVectors | null;
    /** The caller's path rule: then every statistic is over the visible part only. */
    rule: PathRule | null;
  },
): {
  ranked: RepositoryAnswer["ranked"];
  limitations: string[];
  seen: string[];
  chunkGeneration: number | null;
} {
  const { analysis, strategy } = options;
  const table = reader.fileTable();
  const statistics = lexicalStatistics(reader, options.rule);
  const lexicon = statistics.lexicon;
  const chunkCount = statistics.chunks;
  // Hidden and filtered files are dropped before anything is scored or counted. Asked once per
  // file and request (for every row of every term): small ids answer from an array.
  const answers = spareAnswers.take(ANSWERED_IDS) ?? new Uint8Array(ANSWERED_IDS);
  const allowed = new Map<number, boolean>();
  const allowFile = (fileId: number): boolean => {
    const small = fileId >= 0 && fileId < ANSWERED_IDS;
    const known = small ? answers[fileId] : 0;
    if (known !== 0) return known === 1;
    let ok = small ? undefined : allowed.get(fileId);
    if (ok === undefined) {
      const file = table.files.get(fileId);
      ok = file !== undefined && options.allowPath(repo, file.path, file.language);
      if (small) answers[fileId] = ok ? 1 : 2;
      else allowed.set(fileId, ok);
    }
    return ok;
  };
  const selected = selectTerms(statistics, analysis.terms, Math.max(1, chunkCount));
  const termIdf = new Map(selected.map((term) => [term.term, term.idf]));
  const limitations: string[] = [];

  // Chunks are addressed by their row in the generation's chunk columns; a start byte is of the
  // generation they were read at (null: it moved while they were).
  const before = reader.generation();
  const columns = reader.chunkColumns();
  const chunkGeneration = reader.generation() === before ? before : null;
  const lexical = strategy === "vector"
    ? new LexicalScores(columns.ids.length)
    : lexicon
    ? lexicon.matches(selected, allowFile, columns)
    : lexicalMatches(reader, selected, allowFile, columns);
  const vectorScores = new Map<number, number>();
  if (options.vectors) {
    let index = vectorIndexFor(reader, HASH_MODEL_ID);
    let query = options.vectors.hashing;
    const provider = options.vectors.provider;
    if (provider) {
      const providerIndex = vectorIndexFor(reader, provider.model);
      if (providerIndex.dimensions === provider.vector.length) {
        index = providerIndex;
        query = provider.vector;
        options.vectors.providerUsed = true;
      } else {
        options.vectors.problems.push(
          `${repo.name}: no '${provider.model}' vectors stored yet; hashing vectors used`,
        );
      }
    }
    if (index.dimensions === 0 && chunkCount > 0) {
      limitations.push(`${repo.name}: no vectors stored; answered lexically`);
    }
    for (const hit of nearestChunks(index, query, { limit: VECTOR_POOL, allowFile })) {
      if (hit.score < RANKING.minCosine) break;
      vectorScores.set(hit.chunkId, hit.score);
    }
  }
  const { definitions, pinned } = definitionSignals(reader, analysis, allowFile);
  for (const chunkId of mentionedChunks(reader, analysis, table, allowFile)) pinned.add(chunkId);

  // The candidates: the best lexical matches, the nearest vectors and the pinned chunks, by row.
  const lexicalTop = lexical.best(LEXICAL_POOL);
  const candidates = new Int32Array(lexicalTop.length + vectorScores.size + pinned.size);
  let count = 0;
  for (let i = 0; i < lexicalTop.length; i++) candidates[count++] = lexical.rows[lexicalTop[i]];
  for (const chunkId of vectorScores.keys()) {
    const row = columns.rows.get(chunkId);
    if (row !== undefined) candidates[count++] = row;
  }
  for (const chunkId of pinned) {
    const row = columns.rows.get(chunkId);
    if (row !== undefined) candidates[count++] = row;
  }
  const rows = candidates.subarray(0, count).sort();
  // Every chunk with the same fields (one object shape for the ranker's reads), in id order.
  const chunks: RankChunk[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (i > 0 && row === rows[i - 1]) continue;
    const fileId = columns.fileIds[row];
    if (!allowFile(fileId)) continue;
    const id = columns.ids[row];
    const slot = lexical.slotOf(row);
    chunks.push({
      id,
      fileId,
      path: table.files.get(fileId)?.path ?? "",
      startLine: columns.startLines[row],
      endLine: columns.endLines[row],
      startByte: columns.startBytes[row],
      kind: columns.kinds[row],
      symbolPath: columns.symbolPaths[row],
      lexical: slot < 0 ? undefined : lexical.scores[slot],
      lexicalTerms: slot < 0 ? undefined : lexical.terms[slot],
      vector: vectorScores.get(id),
    });
  }
  lexical.release();
  const ranked = rankChunks({
    strategy,
    analysis,
    termIdf,
    chunks,
    files: table.files,
    definitions,
    pinned,
  }, repo);
  // Every file question of this ranking is answered: the array goes back cleared.
  answers.fill(0);
  spareAnswers.give(ANSWERED_IDS, answers);
  return {
    ranked,
    limitations,
    chunkGeneration,
    // Identifiers the query writes that this target holds (by whole compact term).
    seen: analysis.identifiers.filter((word) =>
      statistics.termDocuments(compactIdentifier(word)) > 0
    ),
  };
}

/**
 * Files that define identifiers the query writes as code, weighted by how
 * rare the name is, and the chunks holding those definitions.
 */
function definitionSignals(
  reader: TargetReader,
  analysis: QueryAnalysis,
  allowFile: (fileId: number) => boolean,
): { definitions: Map<number, number>; pinned: Set<number> } {
  const definitions = new Map<number, number>();
  const pinned = new Set<number>();
  if (analysis.identifiers.length === 0) return { definitions, pinned };
  const byName = new Map<string, DefinitionSite[]>();
  for (const site of reader.definitionSites(analysis.identifiers)) {
    if (!allowFile(site.fileId)) continue;
    if (!byName.has(site.name)) byName.set(site.name, []);
    byName.get(site.name)!.push(site);
  }
  for (const defs of byName.values()) {
    if (defs.length > MAX_DEFINITIONS) continue;
    const weight = 1 / Math.sqrt(defs.length);
    for (const def of defs) {
      definitions.set(def.fileId, (definitions.get(def.fileId) ?? 0) + weight);
      const chunk = reader.chunkAt(def.fileId, def.line);
      if (chunk !== null) pinned.add(chunk);
    }
  }
  return { definitions, pinned };
}

/** Chunks at the lines of files a query names with a line (traceback frames). */
function mentionedChunks(
  reader: TargetReader,
  analysis: QueryAnalysis,
  table: FileTable,
  allowFile: (fileId: number) => boolean,
): number[] {
  const withLine = analysis.paths.filter((mention) => mention.line !== null);
  if (withLine.length === 0) return [];
  const basenames = new Set(withLine.map((mention) => mention.path.split("/").pop()!));
  const found: number[] = [];
  for (const [fileId, file] of table.files) {
    if (!basenames.has(file.path.split("/").pop()!) || !allowFile(fileId)) continue;
    for (const mention of withLine) {
      if (pathMatchesMention(file.path, mention.path) < 1) continue;
      const chunk = reader.chunkAt(fileId, mention.line!);
      if (chunk !== null) found.push(chunk);
    }
  }
  return found;
}

/** The 1-based line of the first line in a snippet that holds a query term. */
export function firstMatchingLine(
  snippet: string,
  terms: ReadonlySet<string>,
  startLine: number,
): number {
  const lines = snippet.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!mayHoldTerm(lines[i], terms)) continue;
    if (codeTerms(lines[i]).some((term) => terms.has(term))) return startLine + i;
  }
  return startLine;
}

// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
const SEPARATORS = /[._$:\-]/g;

/**
 * False only when no term of `codeTerms(line)` can be in `terms`: every such
 * term is a lower-cased piece of the line with `._$:-` removed, so one absent
 * from the line so flattened is not there. Lines with other than ASCII are not
 * judged here (lower-casing them is not done character by character).
 */
function mayHoldTerm(line: string, terms: ReadonlySet<string>): boolean {
  if (!ASCII.test(line)) return true;
  const flat = line.toLowerCase().replace(SEPARATORS, "");
  for (const term of terms) if (flat.includes(term)) return true;
  return false;
}
