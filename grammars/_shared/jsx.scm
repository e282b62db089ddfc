; JSX patterns shared by JavaScript and TSX (tree-sitter-javascript and tree-sitter-typescript's
; tsx dialect as shipped by tree-sitter-wasms 0.1.13), after `ecmascript.scm`.

; top-level variables, continued from `ecmascript.scm`: JSX elements as values
(program
  (_
    (variable_declarator
      name: (identifier) @name
      value: [(jsx_element) (jsx_self_closing_element)]) @definition.variable))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: [(jsx_element) (jsx_self_closing_element)]) @definition.variable)))

; identifier reads: names in `{…}` and components (capitalized tags) used as elements
(jsx_expression (identifier) @reference.identifier)
((jsx_opening_element
  name: (identifier) @reference.identifier)
  (#match? @reference.identifier "^[A-Z]"))
((jsx_self_closing_element
  name: (identifier) @reference.identifier)
  (#match? @reference.identifier "^[A-Z]"))
