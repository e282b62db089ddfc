; C (tree-sitter-c as shipped by tree-sitter-wasms 0.1.13).
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

; types: tagged structs/unions/enums with a body, typedefs
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; members and enumerators
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(enumerator name: (identifier) @name) @definition.constant

; macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; file-level variables (declarations that are not prototypes)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable)

; calls: f(), s.f(), p->f() (function pointers in fields)
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

; includes: the module as written, quotes dropped (`<stdio.h>` keeps its brackets)
(preproc_include path: (_) @import.module) @import

; writes: assignments to members (receiver kept) and to names
(assignment_expression
  left: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.write)
(assignment_expression left: (identifier) @name @reference.write)
(update_expression argument: (identifier) @name @reference.write)
(update_expression argument: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.write)

; reads: member accesses that are not callees or assignment targets
(argument_list (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(assignment_expression right: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(init_declarator value: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(return_statement (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(binary_expression (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)

; declared types of parameters, members, variables and results (a tagged type by its tag)
(parameter_declaration type: (type_identifier) @name @reference.type_of)
(parameter_declaration type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)
(field_declaration type: (type_identifier) @name @reference.type_of)
(field_declaration type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)
(declaration type: (type_identifier) @name @reference.type_of)
(declaration type: [(struct_specifier name: (_) @name !body) (union_specifier name: (_) @name !body) (enum_specifier name: (_) @name !body)] @reference.type_of)
(function_definition type: (type_identifier) @name @reference.type_of)
(function_definition type: [(struct_specifier name: (_) @name) (union_specifier name: (_) @name) (enum_specifier name: (_) @name)] @reference.type_of)

; other type uses (plain references)
(type_definition type: (type_identifier) @name @reference.type_use)
(type_definition type: (struct_specifier name: (_) @name !body) @reference.type_use)
(cast_expression type: (type_descriptor type: (type_identifier) @name @reference.type_use))
(sizeof_expression type: (type_descriptor type: (type_identifier) @name @reference.type_use))

; identifier uses that are not calls
(argument_list (identifier) @name @reference.identifier)
(init_declarator value: (identifier) @name @reference.identifier)
(assignment_expression right: (identifier) @name @reference.identifier)
(binary_expression (identifier) @name @reference.identifier)
(unary_expression argument: (identifier) @name @reference.identifier)
(pointer_expression argument: (identifier) @name @reference.identifier)
(return_statement (identifier) @name @reference.identifier)
(field_expression argument: (identifier) @name @reference.identifier)
(subscript_expression argument: (identifier) @name @reference.identifier)
(conditional_expression (identifier) @name @reference.identifier)
(parenthesized_expression (identifier) @name @reference.identifier)
(case_statement value: (identifier) @name @reference.identifier)
(initializer_list (identifier) @name @reference.identifier)
