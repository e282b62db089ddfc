; Go (tree-sitter-go as shipped by tree-sitter-wasms 0.1.13).
; Qualified names: package.Name, package.Type.Method (receiver type via @scope), package.Type.field.

(package_clause (package_identifier) @module)

; functions and methods (the receiver type, pointer and type arguments dropped, owns the method)
(function_declaration
  name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method

; types: structs, interfaces, other named types, aliases
(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct
(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (array_type) (map_type)
         (channel_type) (function_type) (generic_type)]) @definition.type
(type_alias
  name: (type_identifier) @name) @definition.type

; struct fields and interface methods
(field_declaration
  name: (field_identifier) @name) @definition.field
(method_elem
  name: (field_identifier) @name) @definition.method

; package-level constants and variables (locals are dropped by the extractor)
(const_spec (identifier) @name) @definition.constant
(var_spec (identifier) @name) @definition.variable

; calls: f(), pkg.F(), obj.M(), generic F[T]()
(call_expression
  function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call
; composite literals construct a type
(composite_literal type: [(type_identifier) (qualified_type)] @reference.call)

; imports: the module is the import path; a named import is an alias, a dot import a wildcard
(import_spec
  !name
  path: (_) @import.module) @import
(import_spec
  name: (package_identifier) @import.alias
  path: (_) @import.module) @import
(import_spec
  name: (blank_identifier) @import.alias
  path: (_) @import.module) @import
(import_spec
  name: (dot) @import.wildcard
  path: (_) @import.module) @import

; embedding: a struct's anonymous field, an interface's embedded interface
(field_declaration
  !name
  type: [(type_identifier) (qualified_type)] @reference.inherits)
(field_declaration
  !name
  type: (generic_type type: (_) @reference.inherits))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @reference.inherits .))

; writes: assignments (not :=) to fields (receiver kept) and to named variables
(assignment_statement
  left: (expression_list
    (selector_expression
      operand: (_) @receiver
      field: (field_identifier) @name) @reference.write))
(assignment_statement
  left: (expression_list (identifier) @reference.write))
(inc_statement (identifier) @reference.write)
(dec_statement (identifier) @reference.write)
(inc_statement (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.write)
(dec_statement (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.write)

; reads: field selections that are not callees or assignment targets
(argument_list (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read)
(assignment_statement right: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read))
(short_var_declaration right: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read))
(return_statement (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read))
(binary_expression (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read)
(if_statement condition: (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read)
(keyed_element (literal_element (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.read))

; annotated types of parameters, results, fields and variables
(parameter_declaration type: [(type_identifier) (qualified_type)] @reference.type_of)
(parameter_declaration type: (pointer_type [(type_identifier) (qualified_type)] @reference.type_of))
(parameter_declaration type: (generic_type type: (_) @reference.type_of))
(parameter_declaration type: (slice_type element: [(type_identifier) (qualified_type)] @reference.type_of))
(variadic_parameter_declaration type: [(type_identifier) (qualified_type)] @reference.type_of)
(field_declaration name: (_) type: [(type_identifier) (qualified_type)] @reference.type_of)
(field_declaration name: (_) type: (pointer_type [(type_identifier) (qualified_type)] @reference.type_of))
(field_declaration name: (_) type: (slice_type element: [(type_identifier) (qualified_type)] @reference.type_of))
(field_declaration name: (_) type: (generic_type type: (_) @reference.type_of))
(field_declaration name: (_) type: (map_type value: [(type_identifier) (qualified_type)] @reference.type_of))
(var_spec type: [(type_identifier) (qualified_type)] @reference.type_of)
(var_spec type: (pointer_type [(type_identifier) (qualified_type)] @reference.type_of))
(function_declaration result: [(type_identifier) (qualified_type)] @reference.type_of)
(function_declaration result: (pointer_type [(type_identifier) (qualified_type)] @reference.type_of))
(method_declaration result: [(type_identifier) (qualified_type)] @reference.type_of)
(method_declaration result: (pointer_type [(type_identifier) (qualified_type)] @reference.type_of))

; identifier uses that are not calls (arguments, returns, operands, values)
(argument_list (identifier) @reference.identifier)
(return_statement (expression_list (identifier) @reference.identifier))
(binary_expression (identifier) @reference.identifier)
(unary_expression operand: (identifier) @reference.identifier)
(assignment_statement right: (expression_list (identifier) @reference.identifier))
(short_var_declaration right: (expression_list (identifier) @reference.identifier))
(var_spec value: (expression_list (identifier) @reference.identifier))
(keyed_element (literal_element (identifier) @reference.identifier) .)
(selector_expression operand: (identifier) @reference.identifier)
(index_expression operand: (identifier) @reference.identifier)
(if_statement condition: (identifier) @reference.identifier)
(range_clause right: (identifier) @reference.identifier)
(expression_switch_statement value: (identifier) @reference.identifier)
