import assert from "node:assert/strict";
import { join } from "node:path";
import { loadLanguageTable } from "../src/indexer/languages.ts";
import { ParsePool } from "../src/indexer/pool.ts";
import { fixtureRepository } from "./_helpers.ts";

Deno.test("a parse Worker cannot read outside the repository root", async () => {
  const root = fixtureRepository({ "inside.py": "def inside():\n    pass\n" }, { git: false });
  const outside = Deno.makeTempFileSync({ suffix: ".py" });
  Deno.writeTextFileSync(outside, "def outside():\n    pass\n");
  const pool = new ParsePool({ root, table: loadLanguageTable(), size: 1 });
  try {
    const inside = await pool.parse({
      id: 1,
      root,
      path: "inside.py",
      language: "python",
      knownHash: null,
      maxFileSize: 1 << 20,
      packageRoot: null,
    });
    assert.equal(inside.status, "parsed");
    // Asking the Worker itself to read a file outside its root meets the permission wall.
    const escape = await pool.parse({
      id: 2,
      root,
      path: join("..", outside.split("/").slice(-1)[0]),
      language: "python",
      knownHash: null,
      maxFileSize: 1 << 20,
      packageRoot: null,
    });
    assert.equal(escape.status, "skipped");
    assert.equal(escape.status === "skipped" && escape.reason, "symlink_escape");
    assert.match(escape.status === "skipped" ? escape.message : "", /outside the repository root/);
    // A symlink inside the root that points outside is refused by the Worker too.
    Deno.symlinkSync(outside, join(root, "link.py"));
    const link = await pool.parse({
      id: 3,
      root,
      path: "link.py",
      language: "python",
      knownHash: null,
      maxFileSize: 1 << 20,
      packageRoot: null,
    });
    assert.equal(link.status, "skipped");
  } finally {
    pool.close();
    Deno.removeSync(outside);
  }
});
