; Rust (tree-sitter-rust as shipped by tree-sitter-wasms 0.1.13).
; Qualified names: crate::module::Item, crate::module::Type::method (methods of impl blocks
; are owned by the impl's type), crate::module::Trait::method.

; functions; in impl and trait bodies they are methods
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

; types
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type

; impl blocks are named after their type: `impl<T> Trait for Point<T>` → crate::Point
(impl_item type: [(type_identifier) (scoped_type_identifier)] @name) @definition.impl
(impl_item type: (generic_type type: (_) @name)) @definition.impl
(impl_item type: (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)) @definition.impl

; modules, macros, constants, statics, fields, variants
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.variant

; calls: f(), obj.m(), Type::f(), path::to::f(), macros
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(struct_expression name: [(type_identifier) (scoped_type_identifier)] @reference.call)

; imports: one row per binding, the module is the path before it (nested groups joined)
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import
(use_declaration argument: (use_wildcard (_) @import.module "*" @import.wildcard)) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list [(identifier) (self)] @import.name))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (scoped_identifier path: (_) @import.module name: (identifier) @import.name)))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_wildcard (_) @import.module "*" @import.wildcard)))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (scoped_use_list
      path: (_) @import.module
      list: (use_list [(identifier) (self)] @import.name))))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (scoped_use_list
      path: (_) @import.module
      list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))))) @import
(use_declaration
  argument: (use_list [(identifier) (self)] @import.module)) @import
(extern_crate_declaration name: (identifier) @import.module alias: (identifier)? @import.alias) @import

; traits: `impl Trait for Type` implements; supertraits inherit
(impl_item trait: [(type_identifier) (scoped_type_identifier)] @reference.implements)
(impl_item trait: (generic_type type: (_) @reference.implements))
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier)] @reference.inherits))
(trait_item bounds: (trait_bounds (generic_type type: (_) @reference.inherits)))

; writes: assignments to fields (receiver kept) and to names (statics)
(assignment_expression
  left: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.write)
(assignment_expression left: (identifier) @reference.write)
(compound_assignment_expr
  left: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.write)
(compound_assignment_expr left: (identifier) @reference.write)

; reads: field accesses that are not callees or assignment targets
(arguments (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(let_declaration value: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(binary_expression (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(assignment_expression right: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(return_expression (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(reference_expression value: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)
(block (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read .)
(field_initializer value: (field_expression value: (_) @receiver field: (field_identifier) @name) @reference.read)

; annotated types of parameters, fields, constants, lets and results (outer type name)
(parameter type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(parameter type: (generic_type type: (_) @reference.type_of))
(parameter type: (reference_type type: [(type_identifier) (scoped_type_identifier)] @reference.type_of))
(parameter type: (reference_type type: (generic_type type: (_) @reference.type_of)))
(field_declaration type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(field_declaration type: (generic_type type: (_) @reference.type_of))
(field_declaration type: (reference_type type: [(type_identifier) (scoped_type_identifier)] @reference.type_of))
(let_declaration type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(let_declaration type: (generic_type type: (_) @reference.type_of))
(const_item type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(const_item type: (generic_type type: (_) @reference.type_of))
(static_item type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(static_item type: (generic_type type: (_) @reference.type_of))
(function_item return_type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(function_item return_type: (generic_type type: (_) @reference.type_of))
(function_signature_item return_type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(function_signature_item return_type: (generic_type type: (_) @reference.type_of))

; other type uses (plain references)
(type_arguments [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(type_item type: [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(type_item type: (generic_type type: (_) @reference.type_use))

; identifier uses that are not calls
(arguments (identifier) @reference.identifier)
(let_declaration value: (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(unary_expression (identifier) @reference.identifier)
(reference_expression value: (identifier) @reference.identifier)
(return_expression (identifier) @reference.identifier)
(field_expression value: (identifier) @reference.identifier)
(index_expression (identifier) @reference.identifier)
(field_initializer value: (identifier) @reference.identifier)
(shorthand_field_initializer (identifier) @reference.identifier)
(if_expression condition: (identifier) @reference.identifier)
(match_expression value: (identifier) @reference.identifier)
(for_expression value: (identifier) @reference.identifier)
(block (identifier) @reference.identifier .)
