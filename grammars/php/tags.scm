; PHP. The file's `namespace A\B;` prefixes qualified names: `A\B\Kernel`, `A\B\helper`; members
; after `::` (manifest kindSeparators): `A\B\Kernel::handle`, `A\B\Kernel::VERSION`, `A\B\Kernel::count`.
(namespace_definition name: (namespace_name) @module)

; types
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

; functions and methods (interface methods are declarations without a body)
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

; class constants, enum cases, properties (also promoted constructor parameters), define()
(const_declaration (const_element (name) @name) @definition.constant)
(enum_case name: (name) @name) @definition.constant
(property_declaration (property_element (variable_name (name) @name)) @definition.property)
(property_promotion_parameter name: (variable_name (name) @name)) @definition.property
((function_call_expression
   function: (name) @_define
   arguments: (arguments . (argument (string (string_content) @name)))) @definition.constant
  (#eq? @_define "define"))

; calls: f(), $o->m(), $o?->m(), A::m(), static::m(), new A()
(function_call_expression function: [(name) (qualified_name)] @name) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call
(object_creation_expression [(name) (qualified_name)] @name) @reference.call

; inheritance: extends (classes and interfaces), implements, trait use (recorded as implements)
(base_clause [(name) (qualified_name)] @reference.inherits)
(class_interface_clause [(name) (qualified_name)] @reference.implements)
(use_declaration [(name) (qualified_name)] @reference.implements)

; imports: use A\B\C; use A\B\C as D; use A\B\{C, D as E}; use function / const; require/include
(namespace_use_clause
  (qualified_name prefix: (namespace_name) @import.module (name) @import.name)
  alias: (name)? @import.alias) @import
(namespace_use_declaration
  (namespace_use_clause
    . (name) @import.module @import.name
    alias: (name)? @import.alias) @import)
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause
      . [(name) (qualified_name)] @import.name
      alias: (name)? @import.alias) @import))
(require_expression (string (string_content) @import.module)) @import
(require_once_expression (string (string_content) @import.module)) @import
(include_expression (string (string_content) @import.module)) @import
(include_once_expression (string (string_content) @import.module)) @import
(require_expression (binary_expression right: (string (string_content) @import.module))) @import
(require_once_expression (binary_expression right: (string (string_content) @import.module))) @import
(include_expression (binary_expression right: (string (string_content) @import.module))) @import
(include_once_expression (binary_expression right: (string (string_content) @import.module))) @import

; writes: $this->x = …, A::$x = …, $x->y++ , file-level $globals
(assignment_expression left: (member_access_expression object: (_) @receiver name: (name) @name) @reference.write)
(assignment_expression left: (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.write)
(augmented_assignment_expression left: (member_access_expression object: (_) @receiver name: (name) @name) @reference.write)
(augmented_assignment_expression left: (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.write)
(update_expression argument: (member_access_expression object: (_) @receiver name: (name) @name) @reference.write)
(update_expression argument: (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.write)
(program (expression_statement (assignment_expression left: (variable_name) @reference.write)))
(namespace_definition body: (compound_statement (expression_statement (assignment_expression left: (variable_name) @reference.write))))

; reads of properties in value positions
(assignment_expression right: (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)
(assignment_expression right: (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.read)
(argument (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)
(argument (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.read)
(return_statement (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)
(binary_expression (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)
(binary_expression (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @name) @reference.read)
(member_call_expression object: (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)
(nullsafe_member_call_expression object: (member_access_expression object: (_) @receiver name: (name) @name) @reference.read)

; types written on parameters, properties and return values
(simple_parameter type: (named_type [(name) (qualified_name)] @reference.type))
(simple_parameter type: (optional_type (named_type [(name) (qualified_name)] @reference.type)))
(simple_parameter type: (union_type (named_type [(name) (qualified_name)] @reference.type)))
(property_promotion_parameter type: (named_type [(name) (qualified_name)] @reference.type))
(property_promotion_parameter type: (optional_type (named_type [(name) (qualified_name)] @reference.type)))
(property_declaration type: (named_type [(name) (qualified_name)] @reference.type))
(property_declaration type: (optional_type (named_type [(name) (qualified_name)] @reference.type)))
(property_declaration type: (union_type (named_type [(name) (qualified_name)] @reference.type)))
(method_declaration return_type: (named_type [(name) (qualified_name)] @reference.type))
(method_declaration return_type: (optional_type (named_type [(name) (qualified_name)] @reference.type)))
(function_definition return_type: (named_type [(name) (qualified_name)] @reference.type))
(function_definition return_type: (optional_type (named_type [(name) (qualified_name)] @reference.type)))

; references: class names in values (A::X, A::class, instanceof A, catch (A $e)), variables passed on
(class_constant_access_expression . [(name) (qualified_name)] @reference.identifier)
(scoped_property_access_expression scope: [(name) (qualified_name)] @reference.identifier)
(scoped_call_expression scope: [(name) (qualified_name)] @reference.identifier)
(binary_expression operator: "instanceof" right: [(name) (qualified_name)] @reference.identifier)
(catch_clause type: (type_list (named_type [(name) (qualified_name)] @reference.identifier)))
(argument (variable_name) @reference.identifier)
(assignment_expression right: (variable_name) @reference.identifier)
(return_statement (variable_name) @reference.identifier)
(binary_expression (variable_name) @reference.identifier)
(array_element_initializer (variable_name) @reference.identifier)
(argument (name) @reference.identifier)
