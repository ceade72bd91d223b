package segment

import (
	"regexp"
	"strings"
)

// C and C++ write a test as a macro with a body: googletest's
// TEST(Suite, Name) { … } (TEST_F, TEST_P, TYPED_TEST), Boost's
// BOOST_AUTO_TEST_CASE(name) { … }, and Catch2's and doctest's
// TEST_CASE("name", "[tag]") { … } (TEST_CASE_METHOD(Fixture, "name")).
// The first kind parses as a function named for the macro, so every test
// of a file was a unit named TEST; the second as a call statement missing
// its semicolon and a block after it, so a file's tests were module code,
// cut into runs of several tests at a time. Each test is now a unit of
// its own, named by the macro's head as written, TEST(Suite, Name) or
// TEST_CASE("name"): what a reader knows the test by, and no name of
// the code's (a test of Split is no definition of Split), so a state
// that names the code is not sent to its tests by that name.

// macroName is the shape of a macro's name: upper case, digits and
// underscores, a letter first.
var macroName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// maxHead bounds a test's name, in bytes; a longer head is cut at its
// last argument that fits.
const maxHead = 120

// testMacroName names a top-level C or C++ function definition written
// as a macro of bare names, TEST(Suite, Name) or
// BOOST_AUTO_TEST_CASE(name): its head as written, with single spaces
// ("TEST(Suite, Name)"). It is "" for any other definition (one with a
// return type, a parameter with a type and a name, a name in lower
// case).
func (w *walker) testMacroName(fn *node) string {
	if !w.g.macroTests || fn.Type() != "function_definition" || fn.ChildByFieldName("type") != nil {
		return ""
	}
	d := fn.ChildByFieldName("declarator")
	if d == nil || d.Type() != "function_declarator" {
		return ""
	}
	src := w.f.src
	id, params := d.ChildByFieldName("declarator"), d.ChildByFieldName("parameters")
	if id == nil || params == nil || id.Type() != "identifier" || !macroName.MatchString(id.Content(src)) {
		return ""
	}
	var args []string
	for _, p := range namedChildren(params) {
		t := p.ChildByFieldName("type")
		if p.Type() != "parameter_declaration" || p.NamedChildCount() != 1 || t == nil || t.Type() != "type_identifier" {
			return ""
		}
		args = append(args, t.Content(src))
	}
	if len(args) == 0 {
		return ""
	}
	return macroHead(id.Content(src), args)
}

// macroBlock reports whether kids[i] and kids[i+1] are a C or C++ macro
// call and the block it opens, as Catch2's TEST_CASE("name", "[tag]")
// { … } parses: a call statement of a macro, with no semicolon, and a
// block starting on its last line or the next. name is the call's head
// up to its first string, the test's name: TEST_CASE("name"),
// TEST_CASE_METHOD(Fixture, "name").
func (w *walker) macroBlock(kids []*node, i int) (name string, ok bool) {
	if !w.g.macroTests || i+1 >= len(kids) {
		return "", false
	}
	st, body := kids[i], kids[i+1]
	if st.Type() != "expression_statement" || st.NamedChildCount() != 1 || body.Type() != "compound_statement" ||
		startRow(body) > endRow(st)+1 {
		return "", false
	}
	src := w.f.src
	if strings.HasSuffix(strings.TrimSpace(st.Content(src)), ";") {
		return "", false
	}
	call := st.NamedChild(0)
	if call.Type() != "call_expression" {
		return "", false
	}
	fn, params := call.ChildByFieldName("function"), call.ChildByFieldName("arguments")
	if fn == nil || params == nil || fn.Type() != "identifier" || !macroName.MatchString(fn.Content(src)) {
		return "", false
	}
	var args []string
	for _, a := range namedChildren(params) {
		args = append(args, strings.Join(strings.Fields(a.Content(src)), " "))
		if a.Type() == "string_literal" || a.Type() == "raw_string_literal" {
			break
		}
	}
	return macroHead(fn.Content(src), args), true
}

// macroHead writes a macro's head, MACRO(a, b), keeping the arguments that
// fit in maxHead bytes (and the macro's bare name when none does).
func macroHead(macro string, args []string) string {
	for n := len(args); n > 0; n-- {
		if h := macro + "(" + strings.Join(args[:n], ", ") + ")"; len(h) <= maxHead {
			return h
		}
	}
	return macro
}
