; ECMAScript patterns shared by JavaScript, TypeScript and TSX: every node name here is the same
; in tree-sitter-javascript and tree-sitter-typescript (both dialects) as shipped by
; tree-sitter-wasms 0.1.13. Listed first in each manifest; `typescript.scm`, `jsx.scm` and the
; language's own `tags.scm` add what differs.

; functions: declarations and generator declarations
(function_declaration
  name: (identifier) @name) @definition.function
(generator_function_declaration
  name: (identifier) @name) @definition.function

; functions assigned to variables: const f = () => ... / function ... (definition node = the variable_declarator)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; class expressions assigned to variables
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

; methods (class bodies only)
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

; top-level variables: declarators directly under program or under export (function/class values
; and require() are excluded). These are the value kinds every dialect has; each language adds
; its own (TypeScript's `as`/`satisfies`/`!` expressions, JSX elements) in the same two places.
(program
  (_
    [(variable_declarator
       name: (identifier) @name
       value: [
         (identifier) (number) (string) (template_string) (regex)
         (true) (false) (null) (undefined) (this)
         (super) (object) (array) (new_expression) (member_expression)
         (subscript_expression) (binary_expression) (unary_expression) (update_expression) (ternary_expression)
         (parenthesized_expression) (await_expression) (yield_expression) (assignment_expression) (augmented_assignment_expression)
         (sequence_expression) (meta_property)
         (call_expression function: (_) @_callee)])
     (variable_declarator
       name: (identifier) @name
       !value)] @definition.variable)
  (#not-eq? @_callee "require"))
(program
  (export_statement
    declaration: (_
      [(variable_declarator
         name: (identifier) @name
         value: [
           (identifier) (number) (string) (template_string) (regex)
           (true) (false) (null) (undefined) (this)
           (super) (object) (array) (new_expression) (member_expression)
           (subscript_expression) (binary_expression) (unary_expression) (update_expression) (ternary_expression)
           (parenthesized_expression) (await_expression) (yield_expression) (assignment_expression) (augmented_assignment_expression)
           (sequence_expression) (meta_property)
           (call_expression function: (_) @_callee)])
       (variable_declarator
         name: (identifier) @name
         !value)] @definition.variable))
  (#not-eq? @_callee "require"))

; calls: plain, member (receiver = object expression), constructor calls via new
(call_expression
  function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression
  constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; imports: default, namespace, named, side-effect
(import_statement
  (import_clause
    (identifier) @import.alias)
  source: (string) @import.module) @import
(import_statement
  (import_clause
    (namespace_import
      "*" @import.wildcard
      (identifier) @import.alias))
  source: (string) @import.module) @import
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @import.name
        alias: (identifier)? @import.alias)))
  source: (string) @import.module) @import
(import_statement
  .
  source: (string) @import.module) @import

; re-exports: export { a, b as c } from "m", export * from "m", export * as ns from "m"
(export_statement
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_)? @import.alias))
  source: (string) @import.module) @import
(export_statement
  "*" @import.wildcard
  source: (string) @import.module) @import
(export_statement
  (namespace_export
    "*" @import.wildcard
    (_) @import.alias)
  source: (string) @import.module) @import

; CommonJS: const x = require("m"); const { a, b: c } = require("m")
([(lexical_declaration
    (variable_declarator
      name: (identifier) @import.alias
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))
  (variable_declaration
    (variable_declarator
      name: (identifier) @import.alias
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))] @import
  (#eq? @_require "require"))
([(lexical_declaration
    (variable_declarator
      name: (object_pattern
        (shorthand_property_identifier_pattern) @import.name)
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))
  (variable_declaration
    (variable_declarator
      name: (object_pattern
        (shorthand_property_identifier_pattern) @import.name)
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))] @import
  (#eq? @_require "require"))
([(lexical_declaration
    (variable_declarator
      name: (object_pattern
        (pair_pattern
          key: (property_identifier) @import.name
          value: (identifier) @import.alias))
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))
  (variable_declaration
    (variable_declarator
      name: (object_pattern
        (pair_pattern
          key: (property_identifier) @import.name
          value: (identifier) @import.alias))
      value: (call_expression
        function: (identifier) @_require
        arguments: (arguments . (string) @import.module .))))] @import
  (#eq? @_require "require"))

; identifier reads (positive contexts only: never definition names, callees, import names, parameters, assignment targets)
(arguments (identifier) @reference.identifier)
(variable_declarator value: (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(augmented_assignment_expression right: (identifier) @reference.identifier)
(return_statement (identifier) @reference.identifier)
(expression_statement (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(unary_expression argument: (identifier) @reference.identifier)
(update_expression argument: (identifier) @reference.identifier)
(ternary_expression (identifier) @reference.identifier)
(parenthesized_expression (identifier) @reference.identifier)
(sequence_expression (identifier) @reference.identifier)
(await_expression (identifier) @reference.identifier)
(yield_expression (identifier) @reference.identifier)
(spread_element (identifier) @reference.identifier)
(array (identifier) @reference.identifier)
(pair value: (identifier) @reference.identifier)
(object (shorthand_property_identifier) @reference.identifier)
(member_expression object: (identifier) @reference.identifier)
(subscript_expression object: (identifier) @reference.identifier)
(subscript_expression index: (identifier) @reference.identifier)
(template_substitution (identifier) @reference.identifier)
(for_in_statement right: (identifier) @reference.identifier)
(throw_statement (identifier) @reference.identifier)
(switch_case value: (identifier) @reference.identifier)
(arrow_function body: (identifier) @reference.identifier)
(export_statement value: (identifier) @reference.identifier)
(decorator (identifier) @reference.identifier)
(assignment_pattern right: (identifier) @reference.identifier)
(export_statement
  (export_clause
    (export_specifier
      name: (identifier) @reference.identifier))
  !source)

; writes: assignments to members (receiver kept) and to names
(assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.write)
(augmented_assignment_expression
  left: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.write)
(update_expression
  argument: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.write)
(assignment_expression left: (identifier) @reference.write)
(augmented_assignment_expression left: (identifier) @reference.write)
(update_expression argument: (identifier) @reference.write)

; reads: member accesses that are not callees or assignment targets
(arguments (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(variable_declarator value: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(assignment_expression right: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(return_statement (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(binary_expression (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(template_substitution (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(ternary_expression condition: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(if_statement condition: (parenthesized_expression (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read))
(pair value: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
(array (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)
