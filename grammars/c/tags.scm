; C (tree-sitter-c as shipped by tree-sitter-wasms 0.1.13), after `../_shared/c_family.scm`.
; Names are global; struct/union members are Type.member. Headers (.h) are parsed as C++.

; functions (definitions; prototypes are declarations, not definitions). A header split by
; #ifdef can misparse a statement as a definition named `if`: keywords are never names.
((function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))
((function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))
((function_definition
  declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))

; tagged structs with a body; typedefs of function pointers
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; file-level variables (declarations that are not prototypes)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable)

; writes to names
(assignment_expression left: (identifier) @reference.write)

; declared types of parameters, members, variables and results (a tagged type by its tag)
(parameter_declaration type: (type_identifier) @reference.type_of)
(parameter_declaration type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)
(field_declaration type: (type_identifier) @reference.type_of)
(field_declaration type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)
(declaration type: (type_identifier) @reference.type_of)
(declaration type: [(struct_specifier name: (_) @name !body) (union_specifier name: (_) @name !body) (enum_specifier name: (_) @name !body)] @reference.type_of)
(function_definition type: (type_identifier) @reference.type_of)
(function_definition type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)

; other type uses (plain references)
(type_definition type: (struct_specifier name: (_) @name !body) @reference.type_use)
(cast_expression type: (type_descriptor type: (type_identifier) @reference.type_use))
(sizeof_expression type: (type_descriptor type: (type_identifier) @reference.type_use))
