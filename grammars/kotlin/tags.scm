; Kotlin (tree-sitter-grammars' grammar: names are `identifier` nodes, declarations have a
; `name` field). The file's `package a.b` prefixes qualified names: `a.b.Cart.add`. Extension
; functions keep their package name (`a.b.shout` for `fun String.shout()`), as Kotlin imports them.
(package_header (qualified_identifier) @module)

; classes, interfaces (same node, told apart by keyword), objects, type aliases
(class_declaration "class" name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @definition.interface
(object_declaration name: (identifier) @name) @definition.object
(companion_object name: (identifier) @name) @definition.object
(type_alias type: (identifier) @name) @definition.type

; functions (methods inside classes and objects), secondary constructors
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.constructor

; properties: class members, constructor `val`/`var` parameters, top-level values, enum entries
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(class_parameter ["val" "var"] (identifier) @name) @definition.property
((source_file (property_declaration (variable_declaration (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))
(enum_entry . (identifier) @name) @definition.constant

; calls: f(x), Cart("a") (constructors are calls), obj.m(x), obj?.m(x), pkg.Obj.m(x)
(call_expression . (identifier) @name) @reference.call
(call_expression
  . (navigation_expression . (_) @receiver . (identifier) @name .)) @reference.call

; supertypes: a constructor call is the superclass; a bare type of a class or object is an
; implemented interface; an interface's supertypes are inherited
(delegation_specifier (constructor_invocation (user_type (identifier) @reference.inherits .)))
(delegation_specifier (constructor_invocation (user_type (identifier) @reference.inherits . (type_arguments) .)))
(class_declaration "class" (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.implements .))))
(class_declaration "class" (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.implements . (type_arguments) .))))
(object_declaration (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.implements .))))
(object_declaration (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.implements . (type_arguments) .))))
(class_declaration "interface" (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.inherits .))))
(class_declaration "interface" (delegation_specifiers (delegation_specifier (user_type (identifier) @reference.inherits . (type_arguments) .))))

; imports: module = the path as written, name = its last segment; alias; wildcard
((import (qualified_identifier (identifier) @import.name .) @import.module .) @import
  (#not-match? @import "\\*\\s*;?\\s*$"))
(import (qualified_identifier (identifier) @import.name .) @import.module . (identifier) @import.alias) @import
(import (qualified_identifier) @import.module "*" @import.wildcard) @import

; writes: this.x = …, obj.x = …, x = … / x += … (a property or top-level variable when not a local)
(assignment left: (navigation_expression . (_) @receiver . (identifier) @name .) @reference.write)
(assignment left: (identifier) @reference.write)

; reads of members in value positions
(value_argument (navigation_expression . (_) @receiver . (identifier) @name .) @reference.read)
(assignment right: (navigation_expression . (_) @receiver . (identifier) @name .) @reference.read)
(property_declaration (navigation_expression . (_) @receiver . (identifier) @name .) @reference.read)
(return_expression (navigation_expression . (_) @receiver . (identifier) @name .) @reference.read)
(binary_expression (navigation_expression . (_) @receiver . (identifier) @name .) @reference.read)

; written types: parameters, properties, constructor parameters, return types, type arguments
(parameter (user_type (identifier) @reference.type))
(parameter (nullable_type (user_type (identifier) @reference.type)))
(class_parameter (user_type (identifier) @reference.type))
(class_parameter (nullable_type (user_type (identifier) @reference.type)))
(variable_declaration (user_type (identifier) @reference.type))
(variable_declaration (nullable_type (user_type (identifier) @reference.type)))
(function_declaration (function_value_parameters) . (user_type (identifier) @reference.type))
(function_declaration (function_value_parameters) . (nullable_type (user_type (identifier) @reference.type)))
(type_projection (user_type (identifier) @reference.type))
(type_alias (user_type (identifier) @reference.type))

; references: names used as values
(value_argument (identifier) @reference.identifier)
(assignment right: (identifier) @reference.identifier)
(property_declaration (identifier) @reference.identifier)
(return_expression (identifier) @reference.identifier)
(navigation_expression . (identifier) @reference.identifier)
(binary_expression left: (identifier) @reference.identifier)
(binary_expression right: (identifier) @reference.identifier)
(interpolation (identifier) @reference.identifier)
(when_subject (identifier) @reference.identifier)
(if_expression condition: (identifier) @reference.identifier)
(function_body (identifier) @reference.identifier)
(callable_reference (identifier) @reference.identifier)
