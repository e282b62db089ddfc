; Patterns shared by C and C++: every node name here is the same in tree-sitter-c and
; tree-sitter-cpp as shipped by tree-sitter-wasms 0.1.13. Listed first in both manifests; each
; language's `tags.scm` adds functions, classes/structs, variables and declared types.

; unions and enums (with a body)
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; typedefs
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type

; members and enumerators
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(enumerator name: (identifier) @name) @definition.constant

; macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; calls: f(), s.f(), p->f() (function pointers in fields)
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

; includes: the module as written, quotes dropped (`<stdio.h>` keeps its brackets)
(preproc_include path: (_) @import.module) @import

; writes: assignments to members (receiver kept) and increments
(assignment_expression
  left: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.write)
(update_expression argument: (identifier) @reference.write)
(update_expression argument: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.write)

; reads: member accesses that are not callees or assignment targets
(argument_list (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(assignment_expression right: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(init_declarator value: (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(return_statement (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)
(binary_expression (field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.read)

; other type uses (plain references): the type a typedef names
(type_definition type: (type_identifier) @reference.type_use)

; identifier uses that are not calls
(argument_list (identifier) @reference.identifier)
(init_declarator value: (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(unary_expression argument: (identifier) @reference.identifier)
(pointer_expression argument: (identifier) @reference.identifier)
(return_statement (identifier) @reference.identifier)
(field_expression argument: (identifier) @reference.identifier)
(subscript_expression argument: (identifier) @reference.identifier)
(conditional_expression (identifier) @reference.identifier)
(parenthesized_expression (identifier) @reference.identifier)
(case_statement value: (identifier) @reference.identifier)
(initializer_list (identifier) @reference.identifier)
