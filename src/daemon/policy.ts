/**
 * Per-agent access, enforced here and nowhere else: which
 * repositories, paths and actions an agent may use, how many results it may
 * get, and whether it may see source text. Checked before any backend runs
 * (a scoped workspace, a capped request) and again on every result.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import picomatch from "picomatch";
import type { AccessContext } from "../workspace/scope.ts";
import type { PathRule } from "../workspace/visible.ts";
import { WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Envelope, ResultHit } from "../protocol/types.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { type AgentSpec, parseAgents } from "../workspace/config.ts";

// The `agents` section is parsed (and checked) with the rest of `sextant.yml`.
export { type AgentSpec, parseAgents };

/** Actions an agent in `mode: summary` may use: none of them returns source text. */
export const SUMMARY_ACTIONS: ReadonlySet<string> = new Set(["map", "outline", "status"]);

/** The answer to any failed authentication: it never says which part was wrong. */
const REFUSED = "Unknown agent or wrong token";

function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** The access rules of a workspace: who may connect and what each agent is granted. */
export class AccessPolicy {
  readonly #agents: Map<string, AgentSpec> | null;
  readonly #expected: Map<string, Uint8Array>;

  private constructor(agents: AgentSpec[] | null, env: (name: string) => string | undefined) {
    this.#agents = agents ? new Map(agents.map((agent) => [agent.name, agent])) : null;
    this.#expected = new Map();
    for (const agent of agents ?? []) {
      // Both kinds of token are compared as SHA-256 digests: equal lengths, constant time.
      if (agent.tokenSha256) this.#expected.set(agent.name, hexBytes(agent.tokenSha256));
      else if (agent.tokenEnv) {
        const token = env(agent.tokenEnv);
        if (token) this.#expected.set(agent.name, sha256(token));
      }
    }
  }

  /** The policy of a workspace config (`raw.agents`); tokens named by `token_env` are read now. */
  static fromConfig(
    raw: Record<string, unknown>,
    source: string,
    env: (name: string) => string | undefined = (name) => Deno.env.get(name),
  ): AccessPolicy {
    return new AccessPolicy(parseAgents(raw.agents, source), env);
  }

  /** True when there is no `agents` section: one local user with full access. */
  get open(): boolean {
    return this.#agents === null;
  }

  /**
   * The grant of an agent presenting a token; throws `Unauthorized` with the
   * same message whatever was wrong. Without an agents section, full access.
   */
  authenticate(agent: unknown, token: unknown): Grant {
    if (this.#agents === null) return Grant.full(typeof agent === "string" ? agent : "local");
    const spec = typeof agent === "string" ? this.#agents.get(agent) : undefined;
    const expected = spec ? this.#expected.get(spec.name) : undefined;
    const presented = sha256(typeof token === "string" ? token : "");
    // Compare even when the agent is unknown, so timing does not tell names apart.
    const equal = timingSafeEqual(presented, expected ?? sha256("\0no agent\0"));
    if (!spec || !expected || !equal || typeof token !== "string") {
      throw new WireError("Unauthorized", REFUSED);
    }
    return new Grant(spec);
  }

  /** The grant of an already authenticated agent after a reload, or null when it was removed. */
  regrant(agent: string): Grant | null {
    if (this.#agents === null) return Grant.full(agent);
    const spec = this.#agents.get(agent);
    return spec && this.#expected.has(agent) ? new Grant(spec) : null;
  }
}

/** What one authenticated agent may do and see. */
export class Grant {
  readonly agent: string;
  readonly #spec: AgentSpec | null;
  readonly #matchers = new Map<string, (path: string) => boolean>();
  readonly #rules = new Map<string, PathRule>();

  constructor(spec: AgentSpec | null, agent?: string) {
    this.#spec = spec;
    this.agent = spec?.name ?? agent ?? "local";
    for (const [repo, globs] of Object.entries(spec?.paths ?? {})) {
      const matcher = picomatch(globs, { dot: true });
      this.#matchers.set(repo, matcher);
      this.#rules.set(repo, { key: JSON.stringify(globs), allow: matcher });
    }
  }

  /** Full access (no agents section, or the embedded CLI without an agent). */
  static full(agent = "local"): Grant {
    return new Grant(null, agent);
  }

  /** True when nothing is restricted. */
  get unrestricted(): boolean {
    return this.#spec === null;
  }

  get mode(): "full" | "summary" {
    return this.#spec?.mode ?? "full";
  }

  /** May call `workspace/reload`: the local user (full access) or an agent with `admin: true`. */
  get admin(): boolean {
    return this.#spec === null || this.#spec.admin;
  }

  get maxResults(): number | null {
    return this.#spec?.maxResults ?? null;
  }

  /** Names of the workspace's repositories this agent may see. */
  visibleRepositories(workspace: Workspace): Set<string> {
    const names = workspace.repositories.map((repo) => repo.name);
    const allowed = this.#spec?.repositories ?? "*";
    return new Set(allowed === "*" ? names : names.filter((name) => allowed.includes(name)));
  }

  /** Whether a repository-relative path of a (visible) repository may be seen. */
  allowPath(repo: string, path: string): boolean {
    const matcher = this.#matchers.get(repo);
    return matcher ? matcher(path) : true;
  }

  /** Whether only some paths of a repository are visible. */
  pathRestricted(repo: string): boolean {
    return this.#matchers.has(repo);
  }

  /** The path rule of a repository (its globs as the key), or null when every path is visible. */
  pathRule(repo: string): PathRule | null {
    return this.#rules.get(repo) ?? null;
  }

  /**
   * The refresh progress an agent may hear: none of a repository of which it
   * sees only some paths (phases and counts there are the whole tree's, hidden
   * files included).
   */
  progressFor<P>(
    listener: ((repo: string, progress: P) => void) | undefined,
  ): ((repo: string, progress: P) => void) | undefined {
    if (!listener || this.#matchers.size === 0) return listener;
    return (repo, progress) => {
      if (!this.pathRestricted(repo)) listener(repo, progress);
    };
  }

  /** Whether the agent may call an action. */
  allowsAction(action: string): boolean {
    if (this.#spec === null) return true;
    if (this.#spec.actions && !this.#spec.actions.includes(action)) return false;
    return this.#spec.mode !== "summary" || SUMMARY_ACTIONS.has(action);
  }

  /** The actions of a list this agent may call. */
  allowedActions(actions: string[]): string[] {
    return actions.filter((action) => this.allowsAction(action));
  }

  /**
   * Admits a request before any backend runs: refuses an action not granted,
   * caps `limit`, and returns the scoped workspace and the access context.
   */
  admit(
    workspace: Workspace,
    request: { action: string; params: Record<string, unknown> },
  ): { workspace: Workspace; params: Record<string, unknown>; context: AccessContext } {
    const { action, params } = request;
    if (!this.allowsAction(action)) {
      throw new WireError("Unauthorized", `Action '${action}' is not allowed for this agent`);
    }
    if (this.#spec === null) return { workspace, params, context: {} };
    const capped = { ...params };
    const max = this.maxResults;
    // The action pages at the cap itself (a default limit above it would leave results past the
    // cap with no cursor to reach them).
    if (max !== null && Object.hasOwn(METHODS[action]?.params ?? {}, "limit")) {
      if (typeof capped.limit !== "number" || capped.limit > max) capped.limit = max;
    }
    const visible = this.visibleRepositories(workspace);
    const context: AccessContext = { repositories: visible };
    if (this.#matchers.size > 0) {
      context.allowPath = (repo, path) => this.allowPath(repo, path);
      context.pathRestricted = (repo) => this.pathRestricted(repo);
      context.pathRule = (repo) => this.pathRule(repo);
    }
    return { workspace: workspace.scoped(visible), params: capped, context };
  }

  /**
   * Filters an answer again: drops every hit, candidate or nested record that
   * names a repository or path outside the grant, caps the results, and strips
   * source text in summary mode.
   */
  filter(envelope: Envelope, visible: ReadonlySet<string>): Envelope {
    if (this.#spec === null) return envelope;
    const allowed = (value: unknown) => this.#allowedValue(value, visible);
    // A verify verdict 'file_unknown' echoes only the caller's own citation: kept, so a hidden
    // file reads exactly like a missing one (which names no visible repository either).
    let results = envelope.results.filter((hit) =>
      allowed(hit) || (envelope.action === "verify" && hit.verdict === "file_unknown")
    );
    let truncated = envelope.truncated;
    const max = this.maxResults;
    if (max !== null && results.length > max) {
      results = results.slice(0, max);
      truncated = true;
    }
    const filtered: Envelope = {
      ...envelope,
      results: results.map((hit) => this.#scrubHit(hit, visible)),
      repositories: envelope.repositories.filter((state) => visible.has(state.name)),
      limitations: envelope.limitations.filter((line) => !mentionsHidden(line, envelope, visible)),
      truncated,
    };
    if (envelope.candidates) {
      filtered.candidates = envelope.candidates.filter(allowed).map((hit) =>
        this.#scrubHit(hit, visible)
      );
    }
    if (envelope.data !== undefined) filtered.data = this.#scrub(envelope.data, visible);
    return filtered;
  }

  #scrubHit(hit: ResultHit, visible: ReadonlySet<string>): ResultHit {
    const scrubbed = this.#scrub(hit, visible) as ResultHit;
    return this.mode === "summary" ? { ...scrubbed, snippet: "" } : scrubbed;
  }

  /** Removes, at any depth, array elements that name a hidden repository or path. */
  #scrub(value: unknown, visible: ReadonlySet<string>, depth = 0): unknown {
    if (depth > 32 || typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) {
      return value.filter((item) => this.#allowedValue(item, visible))
        .map((item) => this.#scrub(item, visible, depth + 1));
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = this.#scrub(item, visible, depth + 1);
    }
    return out;
  }

  /**
   * False for a record naming a hidden repository (`repo` or `name`+`root`) or hidden path, or
   * holding such a record in a field (a call site whose `node` or `subject` is hidden).
   */
  #allowedValue(value: unknown, visible: ReadonlySet<string>, depth = 0): boolean {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return true;
    const record = value as Record<string, unknown>;
    const repo = typeof record.repo === "string"
      ? record.repo
      : typeof record.name === "string" && ("generation" in record || "root" in record)
      ? record.name
      : null;
    if (repo !== null) {
      if (!visible.has(repo)) return false;
      if (typeof record.path === "string" && !this.allowPath(repo, record.path)) return false;
    }
    if (depth >= 4) return true;
    for (const field of Object.values(record)) {
      if (
        typeof field === "object" && field !== null && !Array.isArray(field) &&
        !this.#allowedValue(field, visible, depth + 1)
      ) return false;
    }
    return true;
  }
}

/** True when a limitation line is about a repository the agent may not see. */
function mentionsHidden(line: string, envelope: Envelope, visible: ReadonlySet<string>): boolean {
  for (const state of envelope.repositories) {
    if (!visible.has(state.name) && line.startsWith(`${state.name}:`)) return true;
  }
  return false;
}

/**
 * The grant of an embedded caller: the agent's, authenticated like the socket
 * does (throws `Unauthorized` with the socket's message); without an agent,
 * the local user who owns the files has full access.
 */
export function embeddedGrant(
  workspace: Workspace,
  identity: { agent?: string; token?: string },
): Grant {
  if (!identity.agent) return Grant.full();
  return AccessPolicy.fromConfig(workspace.config.raw, workspace.config.source ?? "")
    .authenticate(identity.agent, identity.token);
}
