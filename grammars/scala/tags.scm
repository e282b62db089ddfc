; Scala 2 and 3 (`enum`, `given`, `extension`, significant indentation). The file's `package a.b`
; prefixes qualified names: `a.b.Cart.add`; members of objects and package objects are named after
; them (`a.b.Registry.apply`).
(package_clause name: (package_identifier) @module)

; classes, case classes, traits, objects, package objects, type aliases
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(object_definition name: (identifier) @name) @definition.object
(package_object name: (identifier) @name) @definition.object
(type_definition name: (type_identifier) @name) @definition.type
(enum_definition name: (identifier) @name) @definition.enum
(simple_enum_case name: (identifier) @name) @definition.constant
(full_enum_case name: (identifier) @name) @definition.class
(given_definition name: (identifier) @name) @definition.object

; functions (methods in classes, traits and objects); `def this(…)` is an auxiliary constructor
((function_definition name: (identifier) @name) @definition.function (#not-eq? @name "this"))
((function_definition name: (identifier) @name) @definition.constructor (#eq? @name "this"))
(function_declaration name: (identifier) @name) @definition.function

; members: vals and vars of classes/traits/objects, `val`/`var` class parameters
(template_body (val_definition pattern: (identifier) @name) @definition.property)
(template_body (var_definition pattern: (identifier) @name) @definition.property)
(template_body (val_declaration name: (identifier) @name) @definition.property)
(template_body (var_declaration name: (identifier) @name) @definition.property)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.variable)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.variable)

; calls: f(x), obj.m(x), Obj.m(x), f[T](x), new C(x) (a call inside `new`)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (identifier) @name))) @reference.call

; `new C(x)`, `new a.C(x)`, `new C[T](x)`
(instance_expression . [(type_identifier) (stable_type_identifier)] @name arguments: (arguments)) @reference.call
(instance_expression . (generic_type type: (_) @name) arguments: (arguments)) @reference.call

; supertypes: `extends A` is inherited; `with B` traits are mixins (recorded as implements)
(extends_clause . type: [(type_identifier) (stable_type_identifier)] @reference.inherits)
(extends_clause . type: (generic_type type: (_) @reference.inherits))
(extends_clause "with" [(type_identifier) (stable_type_identifier)] @reference.implements)
(extends_clause "with" (generic_type type: (_) @reference.implements))
(extends_clause type: (compound_type base: [(type_identifier) (stable_type_identifier)] @reference.inherits))
(extends_clause type: (compound_type base: (generic_type type: (_) @reference.inherits)))
(extends_clause type: (compound_type extra: [(type_identifier) (stable_type_identifier)] @reference.implements))
(extends_clause type: (compound_type extra: (generic_type type: (_) @reference.implements)))

; imports: `import a.b.C`, `import a.b.{C, D => E}`, `import a.b.C as D`, `import a.b._` (the path
; is a run of identifiers; the module is every segment before the imported name)
(import_declaration . (identifier) @import.module ("." (identifier) @import.module)*
  "." (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module ("." (identifier) @import.module)*
  (namespace_selectors (identifier) @import.name)) @import
(import_declaration . (identifier) @import.module ("." (identifier) @import.module)*
  (namespace_selectors [(arrow_renamed_identifier name: (_) @import.name alias: (_) @import.alias)
                        (as_renamed_identifier name: (_) @import.name alias: (_) @import.alias)])) @import
(import_declaration . (identifier) @import.module ("." (identifier) @import.module)*
  "." (as_renamed_identifier name: (_) @import.name alias: (_) @import.alias)) @import
(import_declaration . (identifier) @import.module ("." (identifier) @import.module)*
  [(namespace_wildcard) (namespace_selectors (namespace_wildcard))] @import.wildcard) @import

; writes: this.x = …, obj.x = …, x = …, x += …
(assignment_expression left: (field_expression value: (_) @receiver field: (identifier) @name) @reference.write)
(assignment_expression left: (identifier) @reference.write)
((infix_expression left: (identifier) @reference.write operator: (operator_identifier) @_op)
  (#match? @_op "^[^=<>!][^=]*=$"))
((infix_expression left: (field_expression value: (_) @receiver field: (identifier) @name) @reference.write operator: (operator_identifier) @_op)
  (#match? @_op "^[^=<>!][^=]*=$"))

; reads of members in value positions
(arguments (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)
(assignment_expression right: (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)
(val_definition value: (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)
(var_definition value: (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)
(infix_expression right: (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)
(function_definition body: (field_expression value: (_) @receiver field: (identifier) @name) @reference.read)

; written types: parameters, class parameters, vals/vars, return types, type arguments
(parameter type: [(type_identifier) (stable_type_identifier)] @reference.type)
(parameter type: (generic_type type: (_) @reference.type))
(class_parameter type: [(type_identifier) (stable_type_identifier)] @reference.type)
(class_parameter type: (generic_type type: (_) @reference.type))
(val_definition type: [(type_identifier) (stable_type_identifier)] @reference.type)
(val_definition type: (generic_type type: (_) @reference.type))
(var_definition type: [(type_identifier) (stable_type_identifier)] @reference.type)
(var_definition type: (generic_type type: (_) @reference.type))
(val_declaration type: [(type_identifier) (stable_type_identifier)] @reference.type)
(function_definition return_type: [(type_identifier) (stable_type_identifier)] @reference.type)
(function_definition return_type: (generic_type type: (_) @reference.type))
(function_declaration return_type: [(type_identifier) (stable_type_identifier)] @reference.type)
(type_arguments [(type_identifier) (stable_type_identifier)] @reference.type)
(type_definition type: [(type_identifier) (stable_type_identifier)] @reference.type)
(type_definition type: (generic_type type: (_) @reference.type))

; references: names used as values
(arguments (identifier) @reference.identifier)
(assignment_expression right: (identifier) @reference.identifier)
(val_definition value: (identifier) @reference.identifier)
(var_definition value: (identifier) @reference.identifier)
(infix_expression left: (identifier) @reference.identifier)
(infix_expression right: (identifier) @reference.identifier)
(field_expression value: (identifier) @reference.identifier)
(function_definition body: (identifier) @reference.identifier)
(if_expression condition: (parenthesized_expression (identifier) @reference.identifier))
(match_expression value: (identifier) @reference.identifier)
(interpolation (identifier) @reference.identifier)
(block (identifier) @reference.identifier .)
