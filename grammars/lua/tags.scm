; Lua. Names as written in the file: `function M.add` is `M.add`, `function M.Cart:push` is
; `M.Cart.push` (the owner comes from @scope; a function with an owner is a method); functions
; assigned to a name or field (`local f = function`, `M.run = function`) are functions too.

(function_definition_statement name: (identifier) @name) @definition.function
(function_definition_statement name: (variable name: (identifier) @name)) @definition.function
(function_definition_statement name: (variable table: (_) @scope field: (identifier) @name)) @definition.function
(function_definition_statement name: (variable table: (_) @scope method: (identifier) @name)) @definition.method
(local_function_definition_statement name: (identifier) @name) @definition.function
(local_variable_declaration
  (variable_list . (variable name: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function
(variable_assignment
  (variable_list . (variable name: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function
(variable_assignment
  (variable_list . (variable table: (_) @scope field: (identifier) @name))
  (expression_list . value: (function_definition))) @definition.function

; functions in table constructors: `local M = { add = function() end }` is `M.add`
(field key: (identifier) @name value: (function_definition)) @definition.function

; locals outside functions (a module table, constants; locals of functions are not symbols);
; a local holding a function is the function above
((local_variable_declaration
   (variable_list . (variable name: (identifier) @name))
   (expression_list . value: (_) @_value)) @definition.variable
  (#not-match? @_value "^function\\s*\\("))
(local_variable_declaration (variable_list . (variable name: (identifier) @name)) .) @definition.variable

; calls: f(x), M.f(x), obj:m(x), f "str", f {table}
(call function: (variable name: (identifier) @name)) @reference.call
(call function: (variable table: (_) @receiver field: (identifier) @name)) @reference.call
(call function: (variable table: (_) @receiver method: (identifier) @name)) @reference.call

; imports: local x = require("m") / x = require "m" (the name bound is the alias); a bare require
((local_variable_declaration
   (variable_list . (variable name: (identifier) @import.alias))
   (expression_list . value: (call
     function: (variable name: (identifier) @_require)
     arguments: (argument_list . [(string) @import.module (expression_list . (string) @import.module)])))) @import
  (#eq? @_require "require"))
((variable_assignment
   (variable_list . (variable name: (identifier) @import.alias))
   (expression_list . value: (call
     function: (variable name: (identifier) @_require)
     arguments: (argument_list . [(string) @import.module (expression_list . (string) @import.module)])))) @import
  (#eq? @_require "require"))
(([(chunk) (block)] (call
   function: (variable name: (identifier) @_require)
   arguments: (argument_list . [(string) @import.module (expression_list . (string) @import.module)])) @import)
  (#eq? @_require "require"))

; writes: fields (`obj.x = v`) and globals (`x = v` without local)
(variable_assignment (variable_list (variable table: (_) @receiver field: (identifier) @name) @reference.write))
(variable_assignment (variable_list (variable name: (identifier) @name @reference.write)))

; reads of fields in value positions
(expression_list (variable table: (_) @receiver field: (identifier) @name) @reference.read)
(binary_expression (variable table: (_) @receiver field: (identifier) @name) @reference.read)
(unary_expression (variable table: (_) @receiver field: (identifier) @name) @reference.read)
(field value: (variable table: (_) @receiver field: (identifier) @name) @reference.read)

; references: names used as values
(expression_list (variable name: (identifier) @name @reference.identifier))
(binary_expression (variable name: (identifier) @name @reference.identifier))
(unary_expression (variable name: (identifier) @name @reference.identifier))
(field value: (variable name: (identifier) @name @reference.identifier))
(variable table: (identifier) @name @reference.identifier)
(if_statement condition: (variable name: (identifier) @name @reference.identifier))
(while_statement condition: (variable name: (identifier) @name @reference.identifier))
