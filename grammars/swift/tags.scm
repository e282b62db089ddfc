; Swift. Names start at the top-level type (a Swift module is a build target, not written in the
; file): `Cart.add`. Members of `extension Cart { … }` are named after the extended type
; (`Cart.hash`); `extension Outer.Inner` names them `Outer.Inner.x`. Operator functions
; (`static func ==`) have no identifier and are not symbols.

; class / struct / enum / actor / extension share one node, told apart by declaration_kind
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name .) @scope) @definition.extension
(protocol_declaration name: (type_identifier) @name) @definition.protocol
(typealias_declaration name: (type_identifier) @name) @definition.type

; functions (methods in types), initializers, protocol requirements
(function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.constructor
(protocol_function_declaration name: (simple_identifier) @name) @definition.method

; properties, protocol properties, enum cases, top-level constants/variables
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property
(enum_entry name: (simple_identifier) @name) @definition.constant
((source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))

; calls: f(x), Type(x) (initializers are calls), obj.m(x), Type.m(x)
(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; supertypes: a class's (superclass and protocols alike: syntax cannot tell them apart) and a
; protocol's are inherited; a struct's / enum's / actor's / extension's are conformances
(class_declaration declaration_kind: "class" (inheritance_specifier inherits_from: (user_type (type_identifier) @reference.inherits .)))
(class_declaration declaration_kind: ["struct" "enum" "actor" "extension"] (inheritance_specifier inherits_from: (user_type (type_identifier) @reference.implements .)))
(protocol_declaration (inheritance_specifier inherits_from: (user_type (type_identifier) @reference.inherits .)))

; imports: `import Foundation`, `@testable import M`, `import struct M.T`
(import_declaration (identifier) @import.module) @import

; writes: self.x = …, obj.x = …, x = … / x += …
(assignment target: (directly_assignable_expression
  (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.write)
(assignment target: (directly_assignable_expression (simple_identifier) @reference.write))

; reads of members in value positions
(value_argument value: (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.read)
(assignment result: (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.read)
(control_transfer_statement result: (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.read)
(property_declaration value: (navigation_expression target: (_) @receiver suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.read)

; written types: annotations, parameters, return types, wrapped (optional, array, dictionary) types
(type_annotation (user_type (type_identifier) @reference.type))
(type_annotation (optional_type (user_type (type_identifier) @reference.type)))
(type_annotation (array_type (user_type (type_identifier) @reference.type)))
(parameter (user_type (type_identifier) @reference.type))
(parameter (optional_type (user_type (type_identifier) @reference.type)))
(parameter (array_type (user_type (type_identifier) @reference.type)))
(function_declaration (user_type (type_identifier) @reference.type))
(function_declaration (optional_type (user_type (type_identifier) @reference.type)))
(function_declaration (array_type (user_type (type_identifier) @reference.type)))
(protocol_function_declaration (user_type (type_identifier) @reference.type))
(dictionary_type (user_type (type_identifier) @reference.type))
(type_arguments (user_type (type_identifier) @reference.type))
(typealias_declaration (user_type (type_identifier) @reference.type))
(typealias_declaration (array_type (user_type (type_identifier) @reference.type)))

; references: names used as values (a few operator contexts only: each pattern costs ~0.1 s of
; query compilation per Worker in this grammar)
(value_argument value: (simple_identifier) @reference.identifier)
(assignment result: (simple_identifier) @reference.identifier)
(control_transfer_statement result: (simple_identifier) @reference.identifier)
(property_declaration value: (simple_identifier) @reference.identifier)
(navigation_expression target: (simple_identifier) @reference.identifier)
(additive_expression (simple_identifier) @reference.identifier)
(comparison_expression (simple_identifier) @reference.identifier)
(equality_expression (simple_identifier) @reference.identifier)
(interpolated_expression (simple_identifier) @reference.identifier)
(statements (simple_identifier) @reference.identifier)
