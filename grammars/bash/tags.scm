; Bash. Functions are named as written (`build`, `util::log`); file-level assignments and
; `export` / `readonly` / `declare` are variables. Calls are commands as written (builtins and
; programs included); `source f` / `. f` are imports; `$X` expansions are reads.

(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)

; calls: every command by its name
(command name: (command_name (word) @name)) @reference.call

; imports: source FILE / . FILE (the path as written, quotes removed)
((command name: (command_name (word) @_source) . argument: (_) @import.module) @import
  (#any-of? @_source "source" "."))

; writes: assignments that are not `local` (a plain assignment in a function sets a global)
(program (variable_assignment name: (variable_name) @reference.write))
(compound_statement (variable_assignment name: (variable_name) @reference.write))
(do_group (variable_assignment name: (variable_name) @reference.write))
(if_statement (variable_assignment name: (variable_name) @reference.write))
(elif_clause (variable_assignment name: (variable_name) @reference.write))
(else_clause (variable_assignment name: (variable_name) @reference.write))
(case_item (variable_assignment name: (variable_name) @reference.write))
(subshell (variable_assignment name: (variable_name) @reference.write))
(list (variable_assignment name: (variable_name) @reference.write))
((declaration_command . _ @_keyword (variable_assignment name: (variable_name) @reference.write))
  (#any-of? @_keyword "export" "readonly" "declare" "typeset"))

; reads: $X, ${X…}, arithmetic operands (positional parameters are not names)
((simple_expansion (variable_name) @reference.read) (#not-match? @reference.read "^[0-9]+$"))
((expansion (variable_name) @reference.read) (#not-match? @reference.read "^[0-9]+$"))
(arithmetic_expansion (variable_name) @reference.read)
(binary_expression (variable_name) @reference.read)
(unary_expression (variable_name) @reference.read)
(postfix_expression (variable_name) @reference.read)
