/** Lua: definitions, relations, ids and syntax errors through the public surface. */
import assert from "node:assert/strict";
import { checkFixture, checkIdStability } from "./_lang_fixture.ts";
import { fixtureRepository, openTarget, withWorkspace } from "./_helpers.ts";

const SOURCE = `local json = require("json")
-- ^ imports: json module=json alias=json
-- ^ def: json variable
local util = require "lib.util"
-- ^ imports: lib.util module=lib.util alias=util
-- ^ def: util variable
require "strict"
-- ^ imports: strict module=strict alias=-
local M = {}
-- ^ def: M variable

--- Adds an item to a cart.
function M.add(cart, item)
-- ^ def: M.add method
  validate(item)
  -- ^ calls: validate receiver=- from=M.add
  -- ^ references: item from=M.add
  cart.total = compute(cart.items)
  -- ^ writes: total receiver=cart from=M.add
  -- ^ calls: compute
  -- ^ reads: items receiver=cart
  util.log(cart.owner)
  -- ^ calls: log receiver=util
  -- ^ reads: owner receiver=cart
  return true
end

function M.Cart:push(item)
-- ^ def: M.Cart.push method
  self:validate(item)
  -- ^ calls: validate receiver=self from=M.Cart.push
end

local function helper(x)
-- ^ def: helper function
  return x
end

M.run = function(a)
-- ^ def: M.run method
-- ^ writes: run receiver=M
  return helper(a)
  -- ^ calls: helper from=M.run
end

local format = function(s) return s end
-- ^ def: format function

local handlers = {
-- ^ def: handlers variable
  on_exit = function(code) return code end,
  -- ^ def: handlers.on_exit function
}

function setup()
-- ^ def: setup function
  counter = counter + 1
  -- ^ writes: counter from=setup
  -- ^ references: counter
end

return M
`;

Deno.test("lua: definitions and relations of a fixture", async () => {
  await checkFixture({ "lua/shop/cart.lua": SOURCE }, {
    exhaustiveKinds: ["function", "method", "variable"],
    exhaustiveRelations: ["imports", "writes"],
  });
});

Deno.test(
  "lua: a file with a syntax error keeps what tree-sitter recovers",
  async () => {
    const good =
      "local function fine()\n  return compute(1, 2)\nend\n\nlocal function other()\n  return 2\nend\n\nlocal function third()\n  return 3\nend\n";
    const root = fixtureRepository({ "broken.lua": good + "\nlocal function broken(x,\n" });
    await withWorkspace(root, async (workspace, run) => {
      await run("refresh");
      const db = openTarget(workspace);
      try {
        const errors = db.prepare("SELECT path, stage, message FROM index_errors").all();
        assert.deepEqual(
          errors.map((e) => ({ path: e.path, stage: e.stage })),
          [{ path: "broken.lua", stage: "syntax" }],
          JSON.stringify(errors),
        );
      } finally {
        db.close();
      }
      const answer = await run("symbols", { query: "fine" });
      assert.ok(answer.results.some((r) => r.symbol === "fine" && r.path === "broken.lua"));
    });
  },
);

Deno.test("lua: a symbol's id survives an edit above it", async () => {
  const source = "local M = {}\n\nfunction M.total()\n  return 1\nend\n";
  await checkIdStability({
    path: "m.lua",
    before: source,
    after: source.replace("local M = {}\n", "local M = {}\n\nfunction M.added()\nend\n"),
    symbol: "M.total",
  });
});
