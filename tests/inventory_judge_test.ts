/**
 * The inventory's one judgement of a path (`pathJudge`): what its name says (malformed,
 * default-excluded folder, secret, settings), then what the file system says (links through
 * any directory on the way, non-files, hard links, size). A judge remembers directories and
 * base names it has seen; these cases mix remembered and new ones in both orders.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isSecretName, pathJudge, takeInventory, type Verdict } from "../src/indexer/inventory.ts";
import { parseSettings } from "../src/indexer/settings.ts";
import { git, tempDirectory } from "./_helpers.ts";

function tree(files: Record<string, string>): string {
  const root = tempDirectory({ prefix: "sextant-judge-" });
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(join(root, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(root, path), text);
  }
  return root;
}

function reasonOf(verdict: Verdict): string {
  if (verdict === null) return "directory";
  return "reason" in verdict ? verdict.reason : `file ${verdict.size}`;
}

Deno.test("pathJudge: names, links and sizes, each judged the same remembered or not", () => {
  const root = tree({
    "src/app.py": "x = 1\n",
    "src/.env": "SECRET=1\n",
    "src/deep/node_modules/dep/index.js": "module.exports = 1;\n",
    "src/deep/keep.py": "y = 2\n",
    "keys/server.pem": "-----BEGIN-----\n",
    "big.txt": "x".repeat(300),
    "skipme/a.py": "z = 3\n",
    "outside/o.py": "o = 4\n",
    "hard/a.py": "h = 5\n",
  });
  Deno.symlinkSync(join(root, "outside"), join(root, "linked"));
  Deno.linkSync(join(root, "hard/a.py"), join(root, "hard/b.py"));
  try {
    const settings = { include: [], exclude: ["skipme/**"], maxFileSize: 200 };
    const expected: [string, string][] = [
      ["src/app.py", "file 6"],
      ["src/.env", "secret"],
      [".env", "secret"], // the same base name elsewhere: remembered, and still a secret
      ["src/deep/node_modules/dep/index.js", "default_exclude"],
      ["src/deep/node_modules/dep/other.js", "default_exclude"],
      ["src/deep/keep.py", "file 6"], // a sibling of the excluded folder is not excluded
      ["keys/server.pem", "secret"],
      ["big.txt", "oversize"],
      ["skipme/a.py", "settings_exclude"],
      ["linked/o.py", "symlink"], // the link leads inside the root: indexed under its own path
      ["linked", "symlink"],
      ["hard/a.py", "hard_link"],
      ["src", "directory"],
      ["missing.py", "unreadable"],
      ["src//app.py", "unreadable"],
      ["./src/app.py", "unreadable"],
      ["src/../src/app.py", "unreadable"],
      ["src/..", "unreadable"],
      ["src/", "unreadable"],
      ["", "unreadable"],
    ];
    const judge = pathJudge(root, settings);
    const forward = expected.map(([path]) => reasonOf(judge(path)));
    const fresh = expected.map(([path]) => reasonOf(pathJudge(root, settings)(path)));
    const backward = pathJudge(root, settings);
    const reversed = [...expected].reverse().map(([path]) => reasonOf(backward(path))).reverse();
    const want = expected.map(([, reason]) => reason);
    assert.deepEqual(forward, want);
    assert.deepEqual(fresh, want);
    assert.deepEqual(reversed, want);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("takeInventory: paths expected from the last refresh change nothing but when they are judged", async () => {
  const root = tree({
    "src/app.py": "x = 1\n",
    "src/new.py": "n = 1\n",
    "ignored/out.py": "i = 1\n",
    ".gitignore": "ignored/\n",
    "src/.env": "SECRET=1\n",
    "outside/o.py": "o = 4\n",
  });
  Deno.symlinkSync(join(root, "outside"), join(root, "linked"));
  try {
    git(root, "init", "-q");
    const settings = await parseSettings(null);
    const plain = await takeInventory(root, settings);
    assert.equal(plain.source, "git");
    assert.deepEqual(plain.files.map((file) => file.path), [
      ".gitignore",
      "outside/o.py",
      "src/app.py",
      "src/new.py",
    ]);
    // Expected: a stored file since deleted, one git ignores, a secret, the link, and a repeat;
    // not the new file. Only what git lists counts, each judged as before.
    const hinted = await takeInventory(root, settings, [
      "src/gone.py",
      "ignored/out.py",
      "src/.env",
      "linked",
      "src/app.py",
      "src/app.py",
    ]);
    assert.deepEqual(hinted, plain);
    assert.deepEqual(
      hinted.skipped.map((skip) => `${skip.path} ${skip.reason}`).sort(),
      ["linked symlink", "src/.env secret"],
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("isSecretName: every secret pattern, in any case, and names that only look alike", () => {
  const secrets = [
    ".env",
    ".ENV",
    ".env.local",
    "server.pem",
    "SERVER.PEM",
    "tls.key",
    "id_rsa",
    "id_rsa.pub",
    "id_dsa",
    "id_ecdsa_sk",
    "id_ed25519",
    "cert.p12",
    "cert.pfx",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "credentials",
    "Credentials",
    "credentials.csv",
    "credentials.json",
    "gcp-credentials.json",
    ".envrc",
    "secrets.yaml",
    "secrets.yml",
    "AuthKey.p8",
    "release.keystore",
    "store.jks",
    ".secret",
    ".secrets",
  ];
  const plain = [
    "env",
    "env.py",
    "a.env",
    "..env",
    "pem",
    "key",
    "keys.py",
    "a.key.txt",
    "rsa_id",
    "npmrc",
    "credential",
    "my_credentials",
    "credentials_test.py",
    "secrets.py",
    "secrets.yaml.example",
    ".secretsx",
    "x.p8.txt",
    "app.py",
    "__init__.py",
  ];
  for (const name of secrets) assert.equal(isSecretName(name), true, name);
  for (const name of plain) assert.equal(isSecretName(name), false, name);
});
