; Ruby. Qualified names: modules, classes and constants joined with `::` (`Foo::Bar::CONST`),
; methods after a `.` (manifest kindSeparators): `Foo::Bar.baz` for instance methods and for
; `def self.make` / `class << self` methods alike (Ruby's `#` is not used).

; modules and classes, also with a written owner (`class Foo::Bar`)
(module name: (constant) @name) @definition.module
(module name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.module
(module name: (scope_resolution !scope name: (constant) @name)) @definition.module
(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.class
(class name: (scope_resolution !scope name: (constant) @name)) @definition.class

; top-level `def` is a function; any other `def` is a method (disjoint parents)
(program (method name: (_) @name) @definition.function)
(body_statement (method name: (_) @name) @definition.method)
(argument_list (method name: (_) @name) @definition.method)
(then (method name: (_) @name) @definition.method)
(else (method name: (_) @name) @definition.method)
(begin (method name: (_) @name) @definition.method)
(if_modifier (method name: (_) @name) @definition.method)
(unless_modifier (method name: (_) @name) @definition.method)
(singleton_method object: (self) name: (_) @name) @definition.method
(singleton_method object: [(constant) (scope_resolution) (identifier)] @scope name: (_) @name) @definition.method

; constants assigned in a module, class or file
(program (assignment left: (constant) @name) @definition.constant)
(body_statement (assignment left: (constant) @name) @definition.constant)

; calls: `f(x)`, `obj.m`, `Foo::Bar.m`, `Foo::m`
(call receiver: (_) @receiver method: [(identifier) (constant)] @name) @reference.call
(call !receiver method: [(identifier) (constant)] @name) @reference.call

; inheritance and mixins (include / extend / prepend are recorded as implements)
(superclass [(constant) (scope_resolution)] @reference.inherits)
((call !receiver method: (identifier) @_mixin
   arguments: (argument_list [(constant) (scope_resolution)] @reference.implements))
  (#any-of? @_mixin "include" "extend" "prepend"))

; imports: require / require_relative / load / autoload (module as written)
((call !receiver method: (identifier) @_require
   arguments: (argument_list . (string (string_content) @import.module) .)) @import
  (#any-of? @_require "require" "require_relative" "load"))
((call !receiver method: (identifier) @_autoload
   arguments: (argument_list . (simple_symbol) @import.name . (string (string_content) @import.module) .)) @import
  (#eq? @_autoload "autoload"))

; writes and reads of instance, class and global variables; attribute writes `obj.x = v`
(assignment left: [(instance_variable) (class_variable) (global_variable)] @reference.write)
(operator_assignment left: [(instance_variable) (class_variable) (global_variable)] @reference.write)
(assignment left: (call receiver: (_) @receiver method: (identifier) @name) @reference.write)
(operator_assignment left: (call receiver: (_) @receiver method: (identifier) @name) @reference.write)
(assignment right: [(instance_variable) (class_variable) (global_variable)] @reference.read)
(operator_assignment right: [(instance_variable) (class_variable) (global_variable)] @reference.read)
(argument_list [(instance_variable) (class_variable) (global_variable)] @reference.read)
(call receiver: [(instance_variable) (class_variable) (global_variable)] @reference.read)
(binary [(instance_variable) (class_variable) (global_variable)] @reference.read)
(return (argument_list [(instance_variable) (class_variable) (global_variable)] @reference.read))
(body_statement [(instance_variable) (class_variable) (global_variable)] @reference.read)
(interpolation [(instance_variable) (class_variable) (global_variable)] @reference.read)
(element_reference object: [(instance_variable) (class_variable) (global_variable)] @reference.read)

; references: identifiers and constants used as values (not calls, definitions or targets)
(argument_list [(identifier) (constant) (scope_resolution)] @reference.identifier)
(assignment right: [(identifier) (constant) (scope_resolution)] @reference.identifier)
(operator_assignment right: [(identifier) (constant) (scope_resolution)] @reference.identifier)
(binary [(identifier) (constant) (scope_resolution)] @reference.identifier)
(call receiver: [(identifier) (constant) (scope_resolution)] @reference.identifier)
(return (argument_list [(identifier) (constant)] @reference.identifier))
(pair value: [(identifier) (constant) (scope_resolution)] @reference.identifier)
(array [(identifier) (constant) (scope_resolution)] @reference.identifier)
(element_reference object: [(identifier) (constant)] @reference.identifier)
(element_reference [(identifier) (constant)] @reference.identifier)
(interpolation (identifier) @reference.identifier)
(conditional [(identifier) (constant)] @reference.identifier)
(if condition: [(identifier) (constant)] @reference.identifier)
(unless condition: [(identifier) (constant)] @reference.identifier)
(while condition: [(identifier) (constant)] @reference.identifier)
(case value: [(identifier) (constant)] @reference.identifier)
(when pattern: (pattern [(identifier) (constant) (scope_resolution)] @reference.identifier))
(exceptions [(constant) (scope_resolution)] @reference.identifier)
(unary operand: [(identifier) (constant)] @reference.identifier)
(splat_argument (identifier) @reference.identifier)
(block_argument (identifier) @reference.identifier)
