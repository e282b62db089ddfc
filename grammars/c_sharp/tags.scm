; C# (tree-sitter-c-sharp as shipped by tree-sitter-wasms 0.1.13).
; Qualified names: Namespace.Class.Method; a file-scoped `namespace X;` owns the rest of the file.

(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.namespace
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.namespace

; types
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(delegate_declaration name: (identifier) @name) @definition.type

; members
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration "operator" @name operator: _ @name) @definition.method
(conversion_operator_declaration "operator" @name type: (_) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(indexer_declaration "this" @name) @definition.property
(field_declaration (variable_declaration (variable_declarator (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration (variable_declarator (identifier) @name))) @definition.field
(event_declaration name: (identifier) @name) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.constant

; calls: F(), obj.M(), Type.M(), generic M<T>(), new T()
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression expression: _ @receiver name: (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression expression: _ @receiver name: (generic_name (identifier) @name))) @reference.call
(object_creation_expression type: [(identifier) (qualified_name)] @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call

; using directives: a namespace import is a wildcard; `using A = X.Y` an alias
(using_directive . [(identifier) (qualified_name)] @import.module .) @import.wildcard @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import

; base lists cannot tell classes from interfaces: the I-prefix convention decides
((base_list [(identifier) (qualified_name)] @reference.implements)
  (#match? @reference.implements "(^|\\.)I[A-Z][^.]*$"))
((base_list [(identifier) (qualified_name)] @reference.inherits)
  (#not-match? @reference.inherits "(^|\\.)I[A-Z][^.]*$"))
((base_list (generic_name (identifier) @reference.implements))
  (#match? @reference.implements "^I[A-Z]"))
((base_list (generic_name (identifier) @reference.inherits))
  (#not-match? @reference.inherits "^I[A-Z]"))

; writes: assignments to members (receiver kept) and to names
(assignment_expression
  left: (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.write)
(assignment_expression left: (identifier) @reference.write)
(postfix_unary_expression (identifier) @reference.write)
(prefix_unary_expression (identifier) @reference.write)

; reads: member accesses that are not callees or assignment targets
(argument (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.read)
(assignment_expression right: (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.read)
(variable_declarator name: (_) . (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.read)
(return_statement (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.read)
(binary_expression (member_access_expression expression: _ @receiver name: (identifier) @name) @reference.read)

; declared types of fields, properties, parameters, locals and results (outer type name)
(variable_declaration type: [(identifier) (qualified_name)] @reference.type_of)
(variable_declaration type: (generic_name (identifier) @reference.type_of))
(property_declaration type: [(identifier) (qualified_name)] @reference.type_of)
(property_declaration type: (generic_name (identifier) @reference.type_of))
(parameter type: [(identifier) (qualified_name)] @reference.type_of)
(parameter type: (generic_name (identifier) @reference.type_of))
(method_declaration returns: [(identifier) (qualified_name)] @reference.type_of)
(method_declaration returns: (generic_name (identifier) @reference.type_of))

; other type uses (plain references)
(type_argument_list [(identifier) (qualified_name)] @reference.type_use)
(attribute name: (_) @reference.attribute)
(typeof_expression type: [(identifier) (qualified_name)] @reference.type_use)
(cast_expression type: [(identifier) (qualified_name)] @reference.type_use)

; identifier uses that are not calls
(argument (identifier) @reference.identifier)
(variable_declarator name: (_) . (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(binary_expression (identifier) @reference.identifier)
(return_statement (identifier) @reference.identifier)
(member_access_expression expression: (identifier) @reference.identifier)
(element_access_expression expression: (identifier) @reference.identifier)
(conditional_expression (identifier) @reference.identifier)
(parenthesized_expression (identifier) @reference.identifier)
(arrow_expression_clause (identifier) @reference.identifier)
(foreach_statement right: (identifier) @reference.identifier)
