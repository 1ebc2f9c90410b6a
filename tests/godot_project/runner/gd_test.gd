## Base of every GDScript test: [code]extends "res://runner/gd_test.gd"[/code].
## Each [code]test_*[/code] method is one test; assertions record failures with file and line.
extends RefCounted

const _BASE_PATH := "res://runner/gd_test.gd"

## Failures recorded by the current test, as "file:line: message".
var failures: PackedStringArray = PackedStringArray()


## Called by the runner before each test method.
func before_each() -> void:
	pass


## Called by the runner after each test method, even when it failed.
func after_each() -> void:
	pass


## Fails the test when [param actual] != [param expected] (same type and value).
func assert_eq(actual: Variant, expected: Variant, message: String = "") -> void:
	if typeof(actual) != typeof(expected) or actual != expected:
		_fail("expected %s, got %s" % [_show(expected), _show(actual)], message)


## Fails the test when [param actual] == [param unexpected].
func assert_ne(actual: Variant, unexpected: Variant, message: String = "") -> void:
	if typeof(actual) == typeof(unexpected) and actual == unexpected:
		_fail("did not expect %s" % _show(actual), message)


## Fails the test unless [param condition] holds.
func assert_true(condition: bool, message: String = "") -> void:
	if not condition:
		_fail("expected true", message)


## Fails the test if [param condition] holds.
func assert_false(condition: bool, message: String = "") -> void:
	if condition:
		_fail("expected false", message)


## Fails the test unless |[param actual] - [param expected]| <= [param tolerance].
func assert_almost(
	actual: float, expected: float, tolerance: float = 1e-6, message: String = ""
) -> void:
	if not absf(actual - expected) <= tolerance:
		_fail("expected %s +- %s, got %s" % [expected, tolerance, actual], message)


## Fails the test now with [param message].
func fail(message: String) -> void:
	_fail(message, "")


func _fail(what: String, message: String) -> void:
	var where: String = "?"
	var stack: Array = get_stack()
	# The first frame outside this file is the test that called the assertion.
	for frame: Variant in stack:
		var info: Dictionary = frame
		var source: String = str(info.get("source", ""))
		if source != _BASE_PATH:
			var line: int = info.get("line", 0)
			where = "%s:%d" % [source, line]
			break
	var text: String = what if message.is_empty() else "%s (%s)" % [what, message]
	failures.append("%s: %s" % [where, text])


func _show(value: Variant) -> String:
	return "%s (%s)" % [var_to_str(value), type_string(typeof(value))]
