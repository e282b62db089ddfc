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
    [(identifier) (attribute)] @reference.inherits))
(class_definition
  superclasses: (argument_list
    (subscript
      value: [(identifier) (attribute)] @reference.inherits)))

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
(typed_parameter type: (type [(identifier) (attribute)] @reference.type))
(typed_default_parameter type: (type [(identifier) (attribute)] @reference.type))
(function_definition return_type: (type [(identifier) (attribute)] @reference.type))
(assignment type: (type [(identifier) (attribute)] @reference.type))
(type_alias_statement (type) . (type [(identifier) (attribute)] @reference.type))
(generic_type (identifier) @reference.type)
(generic_type (type_parameter (type [(identifier) (attribute)] @reference.type)))
(type (subscript value: (attribute) @reference.type))
(type (binary_operator [(identifier) (attribute)] @reference.type))
(type (binary_operator (binary_operator [(identifier) (attribute)] @reference.type)))

; identifier reads (positive contexts only; excludes definition names, callees, imports, parameters, assignment targets)
(call arguments: (argument_list (identifier) @reference.identifier))
(keyword_argument value: (identifier) @reference.identifier)
(assignment right: (identifier) @reference.identifier)
(augmented_assignment right: (identifier) @reference.identifier)
(expression_list (identifier) @reference.identifier)
(return_statement (identifier) @reference.identifier)
(expression_statement (identifier) @reference.identifier)
((binary_operator left: (identifier) @reference.identifier operator: _ @_op)
  (#not-eq? @_op "|"))
((binary_operator operator: _ @_op right: (identifier) @reference.identifier)
  (#not-eq? @_op "|"))
(comparison_operator (identifier) @reference.identifier)
(boolean_operator (identifier) @reference.identifier)
(not_operator argument: (identifier) @reference.identifier)
(unary_operator argument: (identifier) @reference.identifier)
(conditional_expression (identifier) @reference.identifier)
(parenthesized_expression (identifier) @reference.identifier)
(named_expression value: (identifier) @reference.identifier)
(await (identifier) @reference.identifier)
(yield (identifier) @reference.identifier)
(attribute object: (identifier) @reference.identifier
  (#not-any-of? @reference.identifier "self" "cls"))
(subscript value: (identifier) @reference.identifier)
(subscript subscript: (identifier) @reference.identifier)
(slice (identifier) @reference.identifier)
(list (identifier) @reference.identifier)
(tuple (identifier) @reference.identifier)
(set (identifier) @reference.identifier)
(pair value: (identifier) @reference.identifier)
(pair key: (identifier) @reference.identifier)
(list_splat (identifier) @reference.identifier)
(dictionary_splat (identifier) @reference.identifier)
(if_statement condition: (identifier) @reference.identifier)
(elif_clause condition: (identifier) @reference.identifier)
(while_statement condition: (identifier) @reference.identifier)
(if_clause (identifier) @reference.identifier)
(for_statement right: (identifier) @reference.identifier)
(for_in_clause right: (identifier) @reference.identifier)
(list_comprehension body: (identifier) @reference.identifier)
(set_comprehension body: (identifier) @reference.identifier)
(generator_expression body: (identifier) @reference.identifier)
(lambda body: (identifier) @reference.identifier)
(with_item value: (identifier) @reference.identifier)
(as_pattern (identifier) @reference.identifier)
(except_clause (identifier) @reference.identifier)
(match_statement subject: (identifier) @reference.identifier)
(raise_statement (identifier) @reference.identifier)
(assert_statement (identifier) @reference.identifier)
(delete_statement (identifier) @reference.identifier)
(interpolation expression: (identifier) @reference.identifier)
(default_parameter value: (identifier) @reference.identifier)
(typed_default_parameter value: (identifier) @reference.identifier)
(decorator (identifier) @reference.identifier)

; writes: assignments to attributes (receiver kept) and names declared global in a function
(assignment
  left: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write)
(augmented_assignment
  left: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write)
(assignment
  left: (pattern_list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.write))
(global_statement (identifier) @reference.write)
(nonlocal_statement (identifier) @reference.write)

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
