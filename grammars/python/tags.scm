; functions (incl. async, nested, methods; decorated defs match the inner node) with optional docstring
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.function

; classes with optional docstring
(class_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.class

; module-level assignments: ALL_CAPS -> constant, otherwise variable
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.variable)
  (#not-match? @name "^_*[A-Z][A-Z0-9_]*$"))

; module-level assignments under a module-level `if` (`if TYPE_CHECKING:`, version checks)
(module
  (if_statement
    consequence: (block
      (expression_statement
        (assignment
          left: (identifier) @name) @definition.constant)))
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module
  (if_statement
    consequence: (block
      (expression_statement
        (assignment
          left: (identifier) @name) @definition.variable)))
  (#not-match? @name "^_*[A-Z][A-Z0-9_]*$"))

; class-level attributes (direct children of the class body)
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name) @definition.field)))

; type alias statement (3.12)
(type_alias_statement
  . (type (identifier) @name)) @definition.type

; calls
(call
  function: (identifier) @name) @reference.call
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

; inheritance (keyword arguments such as metaclass= are skipped)
(class_definition
  superclasses: (argument_list
    [(identifier) (attribute)] @name @reference.inherits))
(class_definition
  superclasses: (argument_list
    (subscript
      value: [(identifier) (attribute)] @name @reference.inherits)))

; imports
(import_statement
  name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import
    name: (dotted_name) @import.module
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.wildcard) @import

; type annotation references (qualified names such as typing.List are captured whole)
(typed_parameter type: (type [(identifier) (attribute)] @name @reference.type))
(typed_default_parameter type: (type [(identifier) (attribute)] @name @reference.type))
(function_definition return_type: (type [(identifier) (attribute)] @name @reference.type))
(assignment type: (type [(identifier) (attribute)] @name @reference.type))
(type_alias_statement (type) . (type [(identifier) (attribute)] @name @reference.type))
(generic_type (identifier) @name @reference.type)
(generic_type (type_parameter (type [(identifier) (attribute)] @name @reference.type)))
(type (subscript value: (attribute) @name @reference.type))
(type (binary_operator [(identifier) (attribute)] @name @reference.type))
(type (binary_operator (binary_operator [(identifier) (attribute)] @name @reference.type)))

; identifier reads (positive contexts only; excludes definition names, callees, imports, parameters, assignment targets)
(call arguments: (argument_list (identifier) @name @reference.identifier))
(keyword_argument value: (identifier) @name @reference.identifier)
(assignment right: (identifier) @name @reference.identifier)
(augmented_assignment right: (identifier) @name @reference.identifier)
(expression_list (identifier) @name @reference.identifier)
(return_statement (identifier) @name @reference.identifier)
(expression_statement (identifier) @name @reference.identifier)
((binary_operator left: (identifier) @name @reference.identifier operator: _ @_op)
  (#not-eq? @_op "|"))
((binary_operator operator: _ @_op right: (identifier) @name @reference.identifier)
  (#not-eq? @_op "|"))
(comparison_operator (identifier) @name @reference.identifier)
(boolean_operator (identifier) @name @reference.identifier)
(not_operator argument: (identifier) @name @reference.identifier)
(unary_operator argument: (identifier) @name @reference.identifier)
(conditional_expression (identifier) @name @reference.identifier)
(parenthesized_expression (identifier) @name @reference.identifier)
(named_expression value: (identifier) @name @reference.identifier)
(await (identifier) @name @reference.identifier)
(yield (identifier) @name @reference.identifier)
(attribute object: (identifier) @name @reference.identifier
  (#not-any-of? @name "self" "cls"))
(subscript value: (identifier) @name @reference.identifier)
(subscript subscript: (identifier) @name @reference.identifier)
(slice (identifier) @name @reference.identifier)
(list (identifier) @name @reference.identifier)
(tuple (identifier) @name @reference.identifier)
(set (identifier) @name @reference.identifier)
(pair value: (identifier) @name @reference.identifier)
(pair key: (identifier) @name @reference.identifier)
(list_splat (identifier) @name @reference.identifier)
(dictionary_splat (identifier) @name @reference.identifier)
(if_statement condition: (identifier) @name @reference.identifier)
(elif_clause condition: (identifier) @name @reference.identifier)
(while_statement condition: (identifier) @name @reference.identifier)
(if_clause (identifier) @name @reference.identifier)
(for_statement right: (identifier) @name @reference.identifier)
(for_in_clause right: (identifier) @name @reference.identifier)
(list_comprehension body: (identifier) @name @reference.identifier)
(set_comprehension body: (identifier) @name @reference.identifier)
(generator_expression body: (identifier) @name @reference.identifier)
(lambda body: (identifier) @name @reference.identifier)
(with_item value: (identifier) @name @reference.identifier)
(as_pattern (identifier) @name @reference.identifier)
(except_clause (identifier) @name @reference.identifier)
(match_statement subject: (identifier) @name @reference.identifier)
(raise_statement (identifier) @name @reference.identifier)
(assert_statement (identifier) @name @reference.identifier)
(delete_statement (identifier) @name @reference.identifier)
(interpolation expression: (identifier) @name @reference.identifier)
(default_parameter value: (identifier) @name @reference.identifier)
(typed_default_parameter value: (identifier) @name @reference.identifier)
(decorator (identifier) @name @reference.identifier)

; writes: assignments to attributes (receiver kept) and names declared global in a function
(assignment
  left: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write)
(augmented_assignment
  left: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write)
(assignment
  left: (pattern_list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write))
(global_statement (identifier) @name @reference.write)
(nonlocal_statement (identifier) @name @reference.write)

; reads: attribute accesses that are not callees or assignment targets
(argument_list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(assignment right: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(augmented_assignment right: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(return_statement (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(binary_operator (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(comparison_operator (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(boolean_operator (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(not_operator argument: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(if_statement condition: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(subscript value: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(for_statement right: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
(interpolation expression: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.read)
