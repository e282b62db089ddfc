/**
 * The path-level leaks of a red-team pass, one by one (real daemon, real
 * socket, real files): an agent granted `src/**` of a repository never reads a
 * hidden file through a link, never learns a hidden file's name or language
 * from grep, and sees scores, counts, messages and generations computed over
 * what it may see only.
 */
// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { fixtureRepository, git, startDaemon, tempDirectory, writeFiles } from "./_helpers.ts";

const FILES = {
  "src/main.ts": `import { helper } from "./util";
import { Vault } from "./vault/hidden";

export function alphaMain(): number {
  const giraffe = helper(1);
  return giraffe + new Vault().open();
}
`,
  "src/util.ts": "export function helper(n: number): number {\n  return n + 1; // giraffe\n}\n",
  "secret/hidden.ts": `export class SecretVault {
  zanzibarSecretWord = "giraffe zanzibar";
}

export class Vault {
  open(): number {
    return 1;
  }
}
`,
  "secret/tool.py": "def alphaMain():\n    return 'zanzibar'\n",
  "secret/server.pem": "-----BEGIN PRIVATE KEY-----\npemKeyMaterialQ\n-----END PRIVATE KEY-----\n",
  ".env": "TOKEN=envSecretValueQ\n",
  ".envrc": "export TOKEN=envrcSecretValueQ\n",
  "config/secrets.yaml": "token: yamlSecretValueQ\n",
  "config/secrets.yml": "token: ymlSecretValueQ\n",
  "keys/AuthKey.p8": "p8SecretValueQ\n",
  "keys/release.keystore": "keystoreSecretValueQ\n",
  "keys/.secret": "dotSecretValueQ\n",
};

const TOKENS = { limited: "limited-token-1", admin: "admin-token-2" };

function linkedRepository(): string {
  const root = fixtureRepository(FILES, { git: false });
  // Links from the granted part into the hidden part and to secrets.
  Deno.symlinkSync("../secret/hidden.ts", join(root, "src/link.ts"));
  Deno.symlinkSync("../.env", join(root, "src/notes.txt"));
  Deno.symlinkSync("../secret", join(root, "src/vault"));
  Deno.linkSync(join(root, "secret/server.pem"), join(root, "src/key.txt"));
  Deno.linkSync(join(root, "secret/hidden.ts"), join(root, "src/copy.ts"));
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture");
  return root;
}

function workspaceFor(root: string): string {
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${root}
agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [alpha]
    paths: { alpha: ["src/**"] }
  admin:
    token_env: ADMIN_TOKEN
    repositories: "*"
`,
  );
  return workspace;
}

async function session(root: string) {
  const daemon = await startDaemon({
    workspace: workspaceFor(root),
    env: { LIMITED_TOKEN: TOKENS.limited, ADMIN_TOKEN: TOKENS.admin },
  });
  const admin = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  await admin.request("initialize", { agent: "admin", token: TOKENS.admin });
  await limited.request("initialize", { agent: "limited", token: TOKENS.limited });
  await admin.request("refresh", {});
  return {
    admin,
    limited,
    close: async () => {
      admin.close();
      limited.close();
      await daemon.stop();
    },
  };
}

async function ask(client: DaemonClient, method: string, params: unknown): Promise<any> {
  try {
    return { result: await client.request(method, params) };
  } catch (error) {
    assert.ok(error instanceof RpcFailure, String(error));
    return { error: { code: error.code, message: error.message } };
  }
}

/** An answer without trace ids and timings. */
function comparable(value: unknown): string {
  return JSON.stringify(
    value,
    (key, item) => ["trace_id", "elapsed_ms"].includes(key) ? undefined : item,
  );
}

Deno.test("links are judged by what they point to: a symlink or hard link into a hidden path or to a secret is never indexed; the new secret names are skipped (real socket)", async () => {
  const root = linkedRepository();
  const { admin, limited, close } = await session(root);
  try {
    for (const query of ["zanzibarSecretWord", "SecretVault", "open Vault"]) {
      const answer: any = await limited.request("search", { query, limit: 50 });
      const text = JSON.stringify(answer.results);
      assert.ok(!/zanzibar|SecretVault|open\(\): number/.test(text), `${query}: ${text}`);
      for (const hit of answer.results) assert.match(hit.path, /^src\/(main|util)\.ts$/);
    }
    const symbols: any = await limited.request("symbols", { query: "SecretVault" });
    assert.deepEqual(symbols.results, []);
    // Not even the local user's index holds secrets under another name.
    const values = [
      "envSecretValueQ",
      "pemKeyMaterialQ",
      "envrcSecretValueQ",
      "yamlSecretValueQ",
      "ymlSecretValueQ",
      "p8SecretValueQ",
      "keystoreSecretValueQ",
      "dotSecretValueQ",
    ];
    for (const query of values) {
      const answer: any = await admin.request("search", { query, strategy: "lexical" });
      const text = JSON.stringify(answer.results);
      assert.ok(!text.includes(query), `${query}: ${text}`);
    }
    const status: any = await admin.request("status", {});
    const repo = status.data.repositories[0];
    assert.equal(repo.skipped.symlink, 3, JSON.stringify(repo.skipped));
    // Every name of a hard-linked file (the .pem's own name is a secret name first): a name
    // cannot tell whether another name of the same file is a secret or a hidden path.
    assert.equal(repo.skipped.hard_link, 3, JSON.stringify(repo.skipped));
    // .env, .envrc, secrets.yaml, secrets.yml, AuthKey.p8, release.keystore, .secret, server.pem
    assert.equal(repo.skipped.secret, 8, JSON.stringify(repo.skipped));
    const indexed: any = await admin.request("search", { query: "giraffe", strategy: "lexical" });
    assert.deepEqual(
      [...new Set(indexed.results.map((hit: any) => hit.path))].sort(),
      ["src/main.ts", "src/util.ts"],
    );
  } finally {
    await close();
  }
});

Deno.test("grep: a paths glob naming only hidden files answers like one naming nothing, and the pattern's language is inferred from visible files only (real socket)", async () => {
  const root = linkedRepository();
  const { limited, close } = await session(root);
  try {
    const hidden = await ask(limited, "grep", { pattern: "zzzq", paths: ["secret/hidden.*"] });
    const missing = await ask(limited, "grep", { pattern: "zzzq", paths: ["secret/hiddez.*"] });
    assert.equal(comparable(hidden), comparable(missing).replaceAll("hiddez", "hidden"));
    const python = await ask(limited, "grep", { pattern: "zzzq", paths: ["secret/*.py"] });
    const none = await ask(limited, "grep", { pattern: "zzzq", paths: ["nowhere/*.py"] });
    assert.equal(comparable(python), comparable(none).replaceAll("nowhere", "secret"));
    // `alphaMain()` parses as TypeScript and as Python; only TypeScript is visible.
    const inferred = await ask(limited, "grep", { pattern: "alphaMain()" });
    assert.equal(inferred.error, undefined, JSON.stringify(inferred));
    assert.equal(inferred.result.data.language, "typescript");
    assert.ok(!JSON.stringify(inferred).includes("python"), JSON.stringify(inferred));
  } finally {
    await close();
  }
});

Deno.test("scores, features, counts, messages and generations are computed over what the agent may see (real socket)", async () => {
  const root = linkedRepository();
  const { admin, limited, close } = await session(root);
  try {
    // `zanzibar` occurs only in hidden files: it changes nothing the agent is shown.
    // (Lexically: the query vectors of two different words differ anyway.)
    const withHiddenWord: any = await limited.request("search", {
      query: "giraffe zanzibar",
      strategy: "lexical",
    });
    const withNothing: any = await limited.request("search", {
      query: "giraffe qwertyzz",
      strategy: "lexical",
    });
    assert.deepEqual(
      withHiddenWord.data.confidence_features,
      withNothing.data.confidence_features,
    );
    assert.equal(withHiddenWord.data.confidence_features.share, 1);
    assert.deepEqual(
      withHiddenWord.results.map((hit: any) => [hit.path, hit.score]),
      withNothing.results.map((hit: any) => [hit.path, hit.score]),
    );
    assert.equal(withHiddenWord.provenance.confidence, withNothing.provenance.confidence);
    // A name defined only in a hidden file reads like a name defined nowhere.
    const secret: any = await limited.request("definition", { symbol: "SecretVault" });
    const absent: any = await limited.request("definition", { symbol: "SecretVaulz" });
    assert.equal(
      comparable(secret.data),
      comparable(absent.data).replaceAll("SecretVaulz", "SecretVault"),
    );
    assert.deepEqual(secret.results, []);
    // An import of a hidden module fails like an import of a missing one.
    const vault: any = await limited.request("definition", {
      path: "src/main.ts",
      line: 6,
      column: 26,
    });
    assert.ok(!JSON.stringify(vault).includes("hidden.ts"), JSON.stringify(vault));
    assert.ok(!JSON.stringify(vault).includes("not defined in"), JSON.stringify(vault));
    // A hidden file's edit moves nothing the agent sees; a visible file's edit does.
    const before: any = await limited.request("status", {});
    const initial: any = await limited.request("search", { query: "giraffe", limit: 1 });
    assert.equal(before.repositories[0].head, null, "a commit names hidden files too");
    writeFiles(root, { "secret/tool.py": FILES["secret/tool.py"] + "# giraffe\n" });
    const report: any = await admin.request("refresh", {});
    assert.equal(report.data.reports[0].changed, true, "the local index did change");
    const after: any = await limited.request("status", {});
    assert.equal(
      comparable({ ...after, trace_id: 0, data: { ...after.data, daemon: 0 } }),
      comparable({ ...before, trace_id: 0, data: { ...before.data, daemon: 0 } }),
    );
    const next: any = await limited.request("search", {
      query: "giraffe",
      limit: 1,
      cursor: initial.next_cursor,
    });
    assert.ok(next.results.length > 0, "a cursor from before a hidden edit still continues");
    const own: any = await limited.request("refresh", {});
    assert.deepEqual(own.data.reports, [{
      name: "alpha",
      generation: before.repositories[0].generation,
      changed: false,
    }]);
    writeFiles(root, { "src/util.ts": FILES["src/util.ts"] + "// zebra\n" });
    const visible: any = await limited.request("refresh", {});
    assert.equal(visible.data.reports[0].changed, true);
    assert.notEqual(visible.data.reports[0].generation, before.repositories[0].generation);
  } finally {
    await close();
  }
});
