; Java (tree-sitter-java as shipped by tree-sitter-wasms 0.1.13).
; Qualified names: package.Class.method, package.Outer.Inner.field.

(package_declaration [(identifier) (scoped_identifier)] @module)

; types
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.interface

; members
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(enum_constant name: (identifier) @name) @definition.constant

; calls: f(), obj.m(), Type.m(), new T(), this(...)/super(...)
(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(object_creation_expression type: [(type_identifier) (scoped_type_identifier)] @name) @reference.call
(object_creation_expression type: (generic_type [(type_identifier) (scoped_type_identifier)] @name)) @reference.call
(explicit_constructor_invocation constructor: [(this) (super)] @name) @reference.call

; imports: `import a.b.C` → module a.b, name C; `import a.b.*` → wildcard; static imports alike
(import_declaration
  (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
(import_declaration
  [(scoped_identifier) (identifier)] @import.module
  (asterisk) @import.wildcard) @import

; inheritance
(superclass [(type_identifier) (scoped_type_identifier)] @reference.inherits)
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @reference.inherits))
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @reference.implements))
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @reference.implements)))
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @reference.inherits))
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @reference.inherits)))

; writes: assignments to fields (receiver kept) and to names
(assignment_expression
  left: (field_access object: (_) @receiver field: (identifier) @name) @reference.write)
(assignment_expression left: (identifier) @reference.write)
(update_expression (identifier) @reference.write)
(update_expression (field_access object: (_) @receiver field: (identifier) @name) @reference.write)

; reads: field accesses that are not assignment targets
(argument_list (field_access object: (_) @receiver field: (identifier) @name) @reference.read)
(assignment_expression right: (field_access object: (_) @receiver field: (identifier) @name) @reference.read)
(variable_declarator value: (field_access object: (_) @receiver field: (identifier) @name) @reference.read)
(return_statement (field_access object: (_) @receiver field: (identifier) @name) @reference.read)
(binary_expression (field_access object: (_) @receiver field: (identifier) @name) @reference.read)

; annotated types of fields, parameters, locals and results (outer type name)
(field_declaration type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(field_declaration type: (generic_type [(type_identifier) (scoped_type_identifier)] @reference.type_of))
(formal_parameter type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(formal_parameter type: (generic_type [(type_identifier) (scoped_type_identifier)] @reference.type_of))
(spread_parameter [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(local_variable_declaration type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(local_variable_declaration type: (generic_type [(type_identifier) (scoped_type_identifier)] @reference.type_of))
(method_declaration type: [(type_identifier) (scoped_type_identifier)] @reference.type_of)
(method_declaration type: (generic_type [(type_identifier) (scoped_type_identifier)] @reference.type_of))

; other type uses (plain references)
(type_arguments [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(throws [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(catch_type [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(marker_annotation name: (_) @reference.annotation)
(annotation name: (_) @reference.annotation)
(class_literal [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(instanceof_expression right: [(type_identifier) (scoped_type_identifier)] @reference.type_use)
(cast_expression type: [(type_identifier) (scoped_type_identifier)] @reference.type_use)

; identifier uses that are not calls
(argument_list (identifier) @reference.identifier)
(variable_declarator value: (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(unary_expression operand: (identifier) @reference.identifier)
(return_statement (identifier) @reference.identifier)
(field_access object: (identifier) @reference.identifier)
(method_invocation object: (identifier) @reference.identifier)
(array_access array: (identifier) @reference.identifier)
(ternary_expression (identifier) @reference.identifier)
(parenthesized_expression (identifier) @reference.identifier)
(enhanced_for_statement value: (identifier) @reference.identifier)
(throw_statement (identifier) @reference.identifier)
(switch_label (identifier) @reference.identifier)
