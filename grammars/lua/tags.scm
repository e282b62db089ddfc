; Lua for the @tree-sitter-grammars/tree-sitter-lua wasm (npm 0.4.1), to replace tags.scm when
; the manifest's wasm moves to that package (tree-sitter-wasms' Lua wasm corrupts its own state
; after the first parse under web-tree-sitter 0.25: see the manifest's note).
; Names as written in the file: `function M.add` is `M.add`, `function M.Cart:push` is
; `M.Cart.push`; functions assigned to a name or field are functions too.

(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression table: (_) @scope field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression table: (_) @scope method: (identifier) @name)) @definition.method
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function
; (a local declaration wraps an assignment_statement: plain assignments are those in a chunk or block)
(chunk (assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_definition))) @definition.function)
(block (assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_definition))) @definition.function)
(chunk (assignment_statement
  (variable_list . name: (dot_index_expression table: (_) @scope field: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function)
(block (assignment_statement
  (variable_list . name: (dot_index_expression table: (_) @scope field: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function)

; functions in table constructors: `local M = { add = function() end }` is `M.add`
(field name: (identifier) @name value: (function_definition)) @definition.function

; locals outside functions (locals of functions are not symbols); not those holding a function
((variable_declaration
   (assignment_statement
     (variable_list . name: (identifier) @name)
     (expression_list . value: (_) @_value))) @definition.variable
  (#not-match? @_value "^function\\s*\\("))
(variable_declaration (variable_list . name: (identifier) @name)) @definition.variable

; calls: f(x), M.f(x), obj:m(x), f "s", f {t}
(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @reference.call

; imports: local x = require("m") / x = require "m" (the bound name is the alias); a bare require
((variable_declaration
   (assignment_statement
     (variable_list . name: (identifier) @import.alias)
     (expression_list . value: (function_call
       name: (identifier) @_require
       arguments: (arguments . (string content: (string_content) @import.module)))))) @import
  (#eq? @_require "require"))
([(chunk (assignment_statement
     (variable_list . name: (identifier) @import.alias)
     (expression_list . value: (function_call
       name: (identifier) @_require
       arguments: (arguments . (string content: (string_content) @import.module))))) @import)
   (block (assignment_statement
     (variable_list . name: (identifier) @import.alias)
     (expression_list . value: (function_call
       name: (identifier) @_require
       arguments: (arguments . (string content: (string_content) @import.module))))) @import)]
  (#eq? @_require "require"))
((chunk (function_call
   name: (identifier) @_require
   arguments: (arguments . (string content: (string_content) @import.module))) @import)
  (#eq? @_require "require"))
((block (function_call
   name: (identifier) @_require
   arguments: (arguments . (string content: (string_content) @import.module))) @import)
  (#eq? @_require "require"))

; writes: fields (`obj.x = v`) and globals (`x = v` without local)
(chunk (assignment_statement (variable_list name: (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.write)))
(block (assignment_statement (variable_list name: (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.write)))
(chunk (assignment_statement (variable_list name: (identifier) @reference.write)))
(block (assignment_statement (variable_list name: (identifier) @reference.write)))

; reads of fields in value positions
(expression_list (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.read)
(arguments (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.read)
(binary_expression (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.read)
(unary_expression (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.read)
(field value: (dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.read)

; references: names used as values
(expression_list (identifier) @reference.identifier)
(arguments (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(unary_expression (identifier) @reference.identifier)
(field value: (identifier) @reference.identifier)
(dot_index_expression table: (identifier) @reference.identifier)
(if_statement condition: (identifier) @reference.identifier)
(while_statement condition: (identifier) @reference.identifier)
