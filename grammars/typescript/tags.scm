; TypeScript (tree-sitter-typescript's typescript dialect as shipped by tree-sitter-wasms 0.1.13),
; after `../_shared/ecmascript.scm` and `../_shared/typescript.scm`: what .ts has and .tsx does
; not, `<T>x` type assertions.

; top-level variables, continued: a type assertion as the value
(program
  (_
    (variable_declarator
      name: (identifier) @name
      value: (type_assertion)) @definition.variable))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: (type_assertion)) @definition.variable)))
(program
  (ambient_declaration
    (_
      (variable_declarator
        name: (identifier) @name
        value: (type_assertion)) @definition.variable)))
(program
  (export_statement
    declaration: (ambient_declaration
      (_
        (variable_declarator
          name: (identifier) @name
          value: (type_assertion)) @definition.variable))))

; identifier reads, continued
(type_assertion (identifier) @reference.identifier)
