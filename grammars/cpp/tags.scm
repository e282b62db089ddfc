; C++ (tree-sitter-cpp as shipped by tree-sitter-wasms 0.1.13), after `../_shared/c_family.scm`.
; Also parses .h headers.
; Qualified names: ns::Class::method; an out-of-class definition `void A::B::f()` is owned by
; the written scope (@scope encloses @name: the text before the name is the owner).

; namespaces, classes, structs (with a body)
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_)) @definition.struct
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct

; function definitions: plain, returning pointers/references, with written scopes (a header split
; by #ifdef can misparse a statement as a definition named `if`: keywords are never names)
((function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (function_declarator declarator: (template_function name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
  ]) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))
((function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name) @scope)
    (function_declarator declarator: (qualified_identifier name: (template_function name: (identifier) @name)) @scope)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name) @scope))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name) @scope))
  ]) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))
((function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)) @scope)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)) @scope))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)) @scope))
  ]) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))
((function_definition
  declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name))) @scope)) @definition.function
  (#not-any-of? @name "if" "else" "for" "while" "do" "switch" "case" "return" "sizeof"))

; conversion operators, named `operator <type>` (two @name parts joined by a space)
(function_definition declarator: (operator_cast "operator" @name type: (_) @name)) @definition.function
(function_definition
  declarator: (qualified_identifier name: (operator_cast "operator" @name type: (_) @name)) @scope) @definition.function
(field_declaration_list
  [(declaration declarator: (operator_cast "operator" @name type: (_) @name))
   (field_declaration declarator: (operator_cast "operator" @name type: (_) @name))] @definition.method)

; member function declarations inside a class body (constructors, virtual and pure members)
(field_declaration_list
  (field_declaration
    declarator: [
      (function_declarator declarator: [(field_identifier) (identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
    ]) @definition.method)
(field_declaration_list
  (declaration
    declarator: (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)) @definition.method)

; reference members, aliases
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field
(alias_declaration name: (type_identifier) @name) @definition.type

; namespace-level variables
([(translation_unit) (declaration_list)]
  (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)]) @definition.variable)

; calls: ns::f(), Type::f(), f<T>(), obj.f<T>(), new T()
(call_expression
  function: (qualified_identifier scope: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier scope: (_) @receiver name: (template_function name: (identifier) @name))) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (template_method name: (field_identifier) @name))) @reference.call
(new_expression type: [(type_identifier) (qualified_identifier)] @name) @reference.call
(new_expression type: (template_type name: (_) @name)) @reference.call

; using-declarations
(using_declaration "namespace" [(identifier) (qualified_identifier)] @import.module) @import.wildcard @import
(using_declaration (qualified_identifier scope: (_) @import.module name: (_) @import.name)) @import

; inheritance
(base_class_clause [(type_identifier) (qualified_identifier)] @reference.inherits)
(base_class_clause (template_type name: (_) @reference.inherits))

; writes: assignments to names (qualified ones too) and member initializers
(assignment_expression left: [(identifier) (qualified_identifier)] @reference.write)
(field_initializer (field_identifier) @reference.write)

; declared types of parameters, members, variables and results (outer type name)
(parameter_declaration type: [(type_identifier) (qualified_identifier)] @reference.type_of)
(parameter_declaration type: (template_type name: (_) @reference.type_of))
(optional_parameter_declaration type: [(type_identifier) (qualified_identifier)] @reference.type_of)
(field_declaration type: [(type_identifier) (qualified_identifier)] @reference.type_of)
(field_declaration type: (template_type name: (_) @reference.type_of))
(declaration type: [(type_identifier) (qualified_identifier)] @reference.type_of)
(declaration type: (template_type name: (_) @reference.type_of))
(function_definition type: [(type_identifier) (qualified_identifier)] @reference.type_of)
(function_definition type: (template_type name: (_) @reference.type_of))

; other type uses (plain references): template arguments, aliases
(template_argument_list (type_descriptor type: [(type_identifier) (qualified_identifier)] @reference.type_use))
(alias_declaration type: (type_descriptor type: [(type_identifier) (qualified_identifier)] @reference.type_use))
