; TSX (tree-sitter-typescript's tsx dialect as shipped by tree-sitter-wasms 0.1.13), after
; `../_shared/ecmascript.scm`, `../_shared/typescript.scm` and `../_shared/jsx.scm`: JSX values
; of ambient declarations (the tsx dialect has no `<T>x` type assertions).

; top-level variables, continued: JSX elements as values under `declare`
(program
  (ambient_declaration
    (_
      (variable_declarator
        name: (identifier) @name
        value: [(jsx_element) (jsx_self_closing_element)]) @definition.variable)))
(program
  (export_statement
    declaration: (ambient_declaration
      (_
        (variable_declarator
          name: (identifier) @name
          value: [(jsx_element) (jsx_self_closing_element)]) @definition.variable))))
