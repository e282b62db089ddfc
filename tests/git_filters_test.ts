/**
 * git reads the working tree for `map`'s changed files and `impact` with `diff`: a file whose
 * stat data changed is run through its clean filter when git compares it, and a diff that
 * refreshes the index runs the `post-index-change` hook. The filter drivers a repository's own
 * `.git/config` names (whatever their names hold) and its hooks are switched off, so none of
 * them ever runs (SPEC: nothing in an indexed repository is ever executed), and the changes are
 * still seen.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fixtureRepository, git, tempDirectory, withWorkspace } from "./_helpers.ts";

Deno.test("git never runs a repository's filter drivers or hooks, and changed files are still seen", async () => {
  const root = fixtureRepository({
    ".gitattributes": "*.py filter=evil\n",
    "app.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n",
    "README.md": "# readme\n",
    "same.cfg": "unchanged\n",
  });
  const markers = tempDirectory({ prefix: "sextant-filter-marker-" });
  const ran = (name: string) => join(markers, name);
  git(root, "config", "filter.evil.clean", `sh -c 'touch ${ran("clean")}; cat'`);
  git(root, "config", "filter.evil.smudge", `sh -c 'touch ${ran("smudge")}; cat'`);
  git(root, "config", "filter.evil.process", `sh -c 'touch ${ran("process")}'`);
  git(root, "config", "filter.evil.required", "true");
  // A dotted driver name, as configuration allows.
  git(root, "config", "filter.evil.v2.clean", `sh -c 'touch ${ran("dotted")}; cat'`);
  // A driver's name may hold `=` too, which a `-c key=value` argument would cut short.
  git(root, "config", "filter.a=b.clean", `sh -c 'touch ${ran("equals")}; cat'`);
  Deno.writeTextFileSync(
    join(root, ".gitattributes"),
    "*.py filter=evil.v2\n*.txt filter=evil\n*.md filter=a=b\n",
  );
  // A hook git runs when a diff refreshes the index (a tracked file touched, its bytes the same).
  const hook = join(root, ".git", "hooks", "post-index-change");
  Deno.writeTextFileSync(hook, `#!/bin/sh\ntouch ${ran("hook")}\n`);
  Deno.chmodSync(hook, 0o755);
  const later = new Date(Date.now() + 5_000);
  Deno.utimeSync(join(root, "same.cfg"), later, later);
  Deno.writeTextFileSync(join(root, "README.md"), "# changed\n");
  Deno.writeTextFileSync(join(root, "notes.txt"), "untracked\n");
  Deno.writeTextFileSync(
    join(root, "app.py"),
    "def main():\n    return helper()\n\n\ndef helper():\n    return 2\n",
  );
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const map = await run("map", {});
    assert.ok(
      (map.data as { focus: { changed: string[] } }).focus.changed.some((f) =>
        f.endsWith(":app.py")
      ),
      JSON.stringify(map.data),
    );
    const impact = await run("impact", { diff: true });
    assert.ok(
      JSON.stringify(impact).includes("main"),
      `the changed helper's caller: ${JSON.stringify(impact.results)}`,
    );
  });
  assert.deepEqual([...Deno.readDirSync(markers)].map((e) => e.name), [], "a filter ran");
  assert.ok(!existsSync(ran("clean")));
});

Deno.test("a partial clone's missing blob is never fetched: no transport of the repository's runs", async () => {
  const base = tempDirectory({ prefix: "sextant-partial-" });
  const source = join(base, "source");
  const clone = join(base, "clone");
  const marker = join(base, "fetched");
  Deno.mkdirSync(source);
  const commit = (root: string, message: string) =>
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", message);
  git(source, "init", "-q");
  Deno.writeTextFileSync(join(source, "a.py"), "def f():\n    return 1\n");
  git(source, "add", "a.py");
  commit(source, "one");
  git(source, "config", "uploadpack.allowFilter", "true");
  git(base, "clone", "-q", "--filter=blob:none", "--no-local", `file://${source}`, clone);
  Deno.writeTextFileSync(join(source, "a.py"), "def f():\n    return 2\n");
  commit(source, "two");
  // HEAD moves to a commit whose blob of a.py the clone does not have; git diff HEAD needs it.
  git(clone, "fetch", "-q", "origin");
  git(clone, "reset", "-q", "--soft", "FETCH_HEAD");
  // The promisor remote now names a program, through a transport the repository allows itself.
  git(clone, "config", "remote.origin.url", `ext::sh -c touch% ${marker}`);
  git(clone, "config", "protocol.ext.allow", "always");
  await withWorkspace(clone, async (_workspace, run) => {
    await run("refresh");
    await run("map", {});
    await run("impact", { diff: true });
  });
  assert.ok(!existsSync(marker), "the repository's transport ran");
});
