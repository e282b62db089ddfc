; TypeScript patterns shared by TypeScript and TSX (tree-sitter-typescript's two dialects as
; shipped by tree-sitter-wasms 0.1.13), after `ecmascript.scm`. What the dialects do not share
; (`<T>x` type assertions in .ts, JSX in .tsx) is in each one's `tags.scm`.

; function signatures: ambient and overload declarations
(function_signature
  name: (identifier) @name) @definition.function

; classes: declarations and abstract classes (class names are type identifiers here)
(class_declaration
  name: (type_identifier) @name) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

; abstract method signatures, and overload signatures in class bodies
(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(class_body
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

; class fields
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field

; interfaces and their members
(interface_declaration
  name: (type_identifier) @name) @definition.interface
(interface_body
  (property_signature
    name: (property_identifier) @name) @definition.property)
(interface_body
  (method_signature
    name: (property_identifier) @name) @definition.method)

; type aliases and enums
(type_alias_declaration
  name: (type_identifier) @name) @definition.type
(enum_declaration
  name: (identifier) @name) @definition.enum

; namespaces / modules (namespace N {}, module M {}, declare module "m" {})
(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module
(module
  name: [(identifier) (nested_identifier) (string)] @name) @definition.module

; top-level variables, continued from `ecmascript.scm`: TypeScript's own value kinds under
; program and export, then every shared kind under `declare` (ambient declarations)
(program
  (_
    (variable_declarator
      name: (identifier) @name
      value: [
        (as_expression) (satisfies_expression) (non_null_expression) (instantiation_expression)
      ]) @definition.variable))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: [
          (as_expression) (satisfies_expression) (non_null_expression) (instantiation_expression)
        ]) @definition.variable)))
(program
  (ambient_declaration
    (_
      [(variable_declarator
         name: (identifier) @name
         value: [
           (identifier) (number) (string) (template_string) (regex)
           (true) (false) (null) (undefined) (this)
           (super) (object) (array) (new_expression) (member_expression)
           (subscript_expression) (binary_expression) (unary_expression) (update_expression) (ternary_expression)
           (parenthesized_expression) (await_expression) (yield_expression) (assignment_expression) (augmented_assignment_expression)
           (sequence_expression) (meta_property) (as_expression) (satisfies_expression) (non_null_expression)
           (instantiation_expression)
           (call_expression function: (_) @_callee)])
       (variable_declarator
         name: (identifier) @name
         !value)] @definition.variable))
  (#not-eq? @_callee "require"))
(program
  (export_statement
    declaration: (ambient_declaration
      (_
        [(variable_declarator
           name: (identifier) @name
           value: [
             (identifier) (number) (string) (template_string) (regex)
             (true) (false) (null) (undefined) (this)
             (super) (object) (array) (new_expression) (member_expression)
             (subscript_expression) (binary_expression) (unary_expression) (update_expression) (ternary_expression)
             (parenthesized_expression) (await_expression) (yield_expression) (assignment_expression) (augmented_assignment_expression)
             (sequence_expression) (meta_property) (as_expression) (satisfies_expression) (non_null_expression)
             (instantiation_expression)
             (call_expression function: (_) @_callee)])
         (variable_declarator
           name: (identifier) @name
           !value)] @definition.variable)))
  (#not-eq? @_callee "require"))

; inheritance: class extends (identifier or member expression); implements; interface extends
(class_heritage
  (extends_clause
    value: [(identifier) (member_expression)] @reference.inherits))
(implements_clause
  [(type_identifier) (nested_type_identifier)] @reference.implements)
(implements_clause
  (generic_type
    name: (_) @reference.implements))
(extends_type_clause
  type: [(type_identifier) (nested_type_identifier)] @reference.inherits)
(extends_type_clause
  type: (generic_type
    name: (_) @reference.inherits))

; imports: import x = require("m")
(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string) @import.module)) @import

; type references in type positions (type_identifier, qualified ns.T as a whole, generic base name)
(type_annotation [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(type_arguments [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(union_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(intersection_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(array_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(parenthesized_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(tuple_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(optional_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(rest_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(readonly_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(constraint [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(default_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(lookup_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(index_type_query [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(conditional_type [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(as_expression [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(satisfies_expression [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(type_alias_declaration value: [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(function_type return_type: [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(constructor_type type: [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(type_predicate type: [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])
(mapped_type_clause type: [(type_identifier) @reference.type (nested_type_identifier) @reference.type (generic_type name: (_) @reference.type)])

; identifier reads, continued from `ecmascript.scm`: TypeScript's own expression and declaration kinds
(as_expression (identifier) @reference.identifier)
(satisfies_expression (identifier) @reference.identifier)
(non_null_expression (identifier) @reference.identifier)
(required_parameter value: (identifier) @reference.identifier)
(optional_parameter value: (identifier) @reference.identifier)
(public_field_definition value: (identifier) @reference.identifier)
(enum_assignment value: (identifier) @reference.identifier)
(type_query (identifier) @reference.identifier)
