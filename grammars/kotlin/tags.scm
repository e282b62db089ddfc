; Kotlin (the tree-sitter-wasms grammar has no field names: children are matched by type and order).
; The file's `package a.b` prefixes qualified names: `a.b.Cart.add`. Extension functions keep
; their package name (`a.b.shout` for `fun String.shout()`), as Kotlin imports them.
(package_header (identifier) @module)

; classes, interfaces (same node, told apart by keyword), objects, type aliases
(class_declaration "class" (type_identifier) @name) @definition.class
(class_declaration "interface" (type_identifier) @name) @definition.interface
(object_declaration (type_identifier) @name) @definition.object
(type_alias (type_identifier) @name) @definition.type

; functions (methods inside classes and objects), secondary constructors
(function_declaration (simple_identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.constructor

; properties: class members, constructor `val`/`var` parameters, top-level values, enum entries
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.property)
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.property
((source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))
(enum_entry (simple_identifier) @name) @definition.constant

; calls: f(x), Cart("a") (constructors are calls), obj.m(x), pkg.Obj.m(x)
(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .)) @reference.call

; supertypes: a constructor call is the superclass; a bare type of a class or object is an
; implemented interface; an interface's supertypes are inherited
(delegation_specifier (constructor_invocation (user_type (type_identifier) @name @reference.inherits .)))
(delegation_specifier (constructor_invocation (user_type (type_identifier) @name @reference.inherits . (type_arguments) .)))
(class_declaration "class" (delegation_specifier (user_type (type_identifier) @name @reference.implements .)))
(class_declaration "class" (delegation_specifier (user_type (type_identifier) @name @reference.implements . (type_arguments) .)))
(object_declaration (delegation_specifier (user_type (type_identifier) @name @reference.implements .)))
(object_declaration (delegation_specifier (user_type (type_identifier) @name @reference.implements . (type_arguments) .)))
(class_declaration "interface" (delegation_specifier (user_type (type_identifier) @name @reference.inherits .)))
(class_declaration "interface" (delegation_specifier (user_type (type_identifier) @name @reference.inherits . (type_arguments) .)))

; imports: module = the path as written, name = its last segment; alias; wildcard
((import_header
   (identifier (simple_identifier) @import.name .) @import.module
   (import_alias (type_identifier) @import.alias)?) @import
  (#not-match? @import "^import\\s+[^\\s*]+\\s*\\.\\s*\\*"))
(import_header (identifier) @import.module (wildcard_import) @import.wildcard) @import

; writes: this.x = …, obj.x = …, x = … / x += … (a property or top-level variable when not a local)
(assignment
  (directly_assignable_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.write)
(assignment (directly_assignable_expression . (simple_identifier) @name @reference.write .))

; reads of members in value positions
(value_argument (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(assignment (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(property_declaration (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(jump_expression (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(additive_expression (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(comparison_expression (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)
(equality_expression (navigation_expression . (_) @receiver . (navigation_suffix (simple_identifier) @name) .) @reference.read)

; written types: parameters, properties, constructor parameters, return types, type arguments
(parameter (user_type (type_identifier) @name @reference.type))
(parameter (nullable_type (user_type (type_identifier) @name @reference.type)))
(class_parameter (user_type (type_identifier) @name @reference.type))
(class_parameter (nullable_type (user_type (type_identifier) @name @reference.type)))
(variable_declaration (user_type (type_identifier) @name @reference.type))
(variable_declaration (nullable_type (user_type (type_identifier) @name @reference.type)))
(function_declaration (function_value_parameters) . (user_type (type_identifier) @name @reference.type))
(function_declaration (function_value_parameters) . (nullable_type (user_type (type_identifier) @name @reference.type)))
(type_projection (user_type (type_identifier) @name @reference.type))
(type_alias (user_type (type_identifier) @name @reference.type))

; references: names used as values
(value_argument (simple_identifier) @name @reference.identifier)
(assignment (simple_identifier) @name @reference.identifier)
(property_declaration (simple_identifier) @name @reference.identifier)
(jump_expression (simple_identifier) @name @reference.identifier)
(navigation_expression . (simple_identifier) @name @reference.identifier)
(additive_expression (simple_identifier) @name @reference.identifier)
(multiplicative_expression (simple_identifier) @name @reference.identifier)
(comparison_expression (simple_identifier) @name @reference.identifier)
(equality_expression (simple_identifier) @name @reference.identifier)
(conjunction_expression (simple_identifier) @name @reference.identifier)
(disjunction_expression (simple_identifier) @name @reference.identifier)
(elvis_expression (simple_identifier) @name @reference.identifier)
(interpolated_expression (simple_identifier) @name @reference.identifier)
(when_subject (simple_identifier) @name @reference.identifier)
(if_expression . (simple_identifier) @name @reference.identifier)
(function_body (simple_identifier) @name @reference.identifier)
(callable_reference (simple_identifier) @name @reference.identifier)
