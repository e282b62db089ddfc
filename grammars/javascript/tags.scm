; JavaScript (tree-sitter-javascript as shipped by tree-sitter-wasms 0.1.13), after
; `../_shared/ecmascript.scm` and `../_shared/jsx.scm`: functions assigned to members and
; object-literal members, classes named by identifiers, `field_definition`, `class_heritage`.

; functions assigned to members: exports.f = function …, app.render = function render() …,
; module.exports.f = () => … (owner = the object), X.prototype.m = function … (owner = X)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @scope
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)]) @definition.method
  (#eq? @_prototype "prototype"))
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [(identifier) (member_expression)] @scope
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)]) @definition.function
  (#not-match? @scope "prototype$")
  (#not-eq? @name "exports"))

; object-literal members whose value is a function: { show: function () {} }, { show() {} }
(pair
  key: (property_identifier) @name
  value: [(function_expression) (arrow_function) (generator_function)]) @definition.function
(object
  (method_definition
    name: (property_identifier) @name) @definition.method)

; class declarations (class names are identifiers here)
(class_declaration
  name: (identifier) @name) @definition.class

; class fields
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.field

; inheritance: class extends (identifier or member expression)
(class_heritage
  [(identifier) (member_expression)] @reference.inherits)

; identifier reads, continued: field initializers
(field_definition value: (identifier) @reference.identifier)
