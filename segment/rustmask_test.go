package segment

import (
	"strings"
	"testing"
)

func TestMaskRustBodies(t *testing.T) {
	body := "\n        let s = r#\"}\"#; // a } in a comment\n        let c = '}';\n        /* nested /* } */ */\n        s.len() + b\"{\".len()\n    "
	// A whole function's signature is blanked too, but its name and
	// parentheses: its generics, its parameters, its result and where
	// clause.
	head := "/// Docs.\n#[inline]\nimpl<'a> S<'a> {\n    pub fn f"
	sig := [3]string{"<T: Fn() -> u8>", "&'a self, x: [u8; 2]", " -> usize where T: Copy "}
	mid := "}\n    fn decl(&self);\n    fn g(&self) {"
	rules := "}\n}\n\nmacro_rules! m {\n    () => { fn h() { 1 } };\n}\n\ntype F = fn(u8) -> u8;\n"
	src := head + sig[0] + "(" + sig[1] + ")" + sig[2] + "{" + body + mid + " self.f() " + rules
	want := head + blankText(sig[0]) + "(" + blankText(sig[1]) + ")" + blankText(sig[2]) + "{" + blankText(body) +
		"}\n    fn decl(&self);\n    fn g(     ) {" + blankText(" self.f() ") +
		"}\n}\n\nmacro_rules! m {" + blankText("\n    () => { fn h() { 1 } };\n") + "}\n\ntype F = fn(u8) -> u8;\n"
	checkMaskedAs(t, maskRustBodies, src, want)
}

// TestMaskRustSignatures: a signature is blanked only around a name and
// a parenthesis that a function's parameters open; a declaration
// without a body, or the signature of a function cut at its statements,
// is left as it is.
func TestMaskRustSignatures(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"fn f<'a, F: FnOnce(&'a u8) -> u8>(f: F) -> impl Iterator<Item = u8> {\n    1\n}\n",
			"fn f" + blankText("<'a, F: FnOnce(&'a u8) -> u8>") + "(" + blankText("f: F") + ")" +
				blankText(" -> impl Iterator<Item = u8> ") + "{\n     \n}\n"},
		{"pub(crate) async fn f(\n    a: u8, // one\n    b: u8,\n) -> Result<(), E> { 1 }\n",
			"pub(crate) async fn f(" + blankText("\n    a: u8, // one\n    b: u8,\n") + ")" + blankText(" -> Result<(), E> ") + "{   }\n"},
		{"trait T {\n    fn f(&self) -> u8;\n    fn g(&self) { 1 }\n}\n",
			"trait T {\n    fn f(&self) -> u8;\n    fn g(     ) {   }\n}\n"},
	} {
		checkMaskedAs(t, maskRustBodies, c.src, c.want)
	}
	big := "fn big(x: u8) -> u8 {\n" + strings.Repeat("    let x = f();\n", 160) + "}\n"
	checkRefuses(t, maskRustBodies, []string{big})
}

// TestMaskRustAttributes: an attribute's arguments are blanked between
// their parentheses; one without them is left as it is.
func TestMaskRustAttributes(t *testing.T) {
	src := "#![cfg_attr(docsrs, feature(doc_cfg))]\n#[derive(Debug, Clone)]\n#[inline]\n#[doc = \"x\"]\nstruct S;\n"
	want := "#![cfg_attr(" + blankText("docsrs, feature(doc_cfg)") + ")]\n#[derive(" + blankText("Debug, Clone") + ")]\n#[inline]\n#[doc = \"x\"]\nstruct S;\n"
	checkMaskedAs(t, maskRustBodies, src, want)
	// Comments inside are blanked with the rest, never merged.
	args := "any(\n    // one\n    // two\n    unix,\n)"
	checkMaskedAs(t, maskRustBodies, "#[cfg("+args+")]\nstruct S;\n", "#[cfg("+blankText(args)+")]\nstruct S;\n")
}

// TestMaskRustUse: a use declaration's path is blanked past its first
// name; one that starts with no name, or a "use" among a macro's tokens,
// is left as it is.
func TestMaskRustUse(t *testing.T) {
	src := "use std::{fmt, io::{self, Read}};\npub(crate) use super::x as y;\nuse ::core::mem;\nuse a;\nm!(use);\nfn f() {}\n"
	want := "use std" + blankText("::{fmt, io::{self, Read}}") + ";\npub(crate) use super" + blankText("::x as y") +
		";\nuse ::core::mem;\nuse a;\nm!(   );\nfn f() {}\n"
	checkMaskedAs(t, maskRustBodies, src, want)
}

// TestMaskRustBodiesBig: a function whose unit may be cut at its
// statements is left as it is, with what it holds.
func TestMaskRustBodiesBig(t *testing.T) {
	src := "fn big() {\n    fn inner() { 1; }\n" + strings.Repeat("    let x = f();\n", 160) + "}\n"
	if got, ok := maskRustBodies([]byte(src)); ok {
		t.Fatalf("masked:\n%s", got.text)
	}
}

// TestMaskRustBodiesRefuses: files that do not lex are not masked.
func TestMaskRustBodiesRefuses(t *testing.T) {
	checkRefuses(t, maskRustBodies, []string{
		"fn f() {\n    let s = \"open;\n}\n",     // a string not closed
		"fn f() {\n    let s = r#\"open\";\n}\n", // a raw string not closed
		"fn f() {\n    /* open /* */\n}\n",       // a nested comment not closed
		"fn f() {\n    if x {\n}\n",              // a brace not closed
		"fn f() {\n}\n}\n",                       // a brace closed twice
		"trait T {\n    fn f(&self);\n}\n",       // no body
		"fn f() {\n    let c = '\\n;\n}\n",       // a character not closed
	})
}

// rustMaskCases are Rust sources whose segmentation must not change when
// function bodies are masked for the parse.
var rustMaskCases = []string{
	"use std::fmt;\n\n/// A.\n#[derive(Debug)]\npub struct A {\n    x: u8,\n}\n\nimpl A {\n    /// New.\n    pub fn new() -> Self {\n        A { x: b'{' }\n    }\n\n    fn get(&self) -> u8 {\n        self.x\n    }\n}\n",
	"pub trait T {\n    fn f(&self) -> &'static str {\n        \"}\"\n    }\n    fn g(&self);\n}\n\nmod m {\n    pub(crate) async fn h<'a>(x: &'a str) -> &'a str where 'a: 'a {\n        'outer: loop { break 'outer x; }\n    }\n}\n",
	"macro_rules! gen {\n    ($n:ident) => {\n        fn $n() {}\n    };\n}\n\ncfg_rt! {\n    pub fn spawn() {\n        todo!()\n    }\n}\n",
	"fn big() {\n" + strings.Repeat("    if let Some(x) = f() {\n        g(x);\n    }\n", 80) + "}\n",
	// Runs of line comments: before items (merged for the parse), before
	// a macro's call, a statement, a blank row or the file's end (not).
	"//! Crate docs.\n//! More.\nuse std::fmt;\n\n/// A.\n/// B.\n#[inline]\npub fn a() {}\n\n// one\n// two\nrgtest!(t, |d| {\n    d.f();\n});\n\nimpl S {\n    // x\n    // y\n    fn s(&self) {}\n    /// z\n    /// w\n\n    pub(crate) fn t(&self) {}\n}\n// tail\n// end",
	strings.Repeat("/// Long docs.\n", 300) + "pub struct Big;\n\n" + strings.Repeat("// notes\n", 200) + "const N: u8 = 1;\nstatic X: u8 = 2;\n",
	"fn big() {\n    // inside\n    // a function cut at its statements\n    let a = 1;\n" + strings.Repeat("    let x = f();\n", 160) + "}\n",
	// Macros' calls: small ones anywhere, large items of the file, large
	// ones elsewhere read on (the functions inside masked).
	"cfg_rt! {\n" + strings.Repeat("    /// Docs.\n    pub fn f() -> u8 {\n        g!(1)\n    }\n", 40) + "}\n\n" +
		"impl S {\n    cfg_io! {\n" + strings.Repeat("        pub fn h(&self) {\n            let x = 1;\n        }\n", 30) + "    }\n    m!(a, b);\n}\n\n" +
		"impl T {\n    big! {\n" + strings.Repeat("        x y z\n", 120) + "    }\n}\n\n" +
		"type X =\n    big! {\n" + strings.Repeat("        x y z\n", 120) + "    };\n" +
		"const A: bool = 1 != 2;\nstatic B: [u8; 2] = tokio::m![1, 2];\n",
	// Signatures of whole functions, in a module cut into runs of its
	// items (a result type's name is defined by none), and attributes'
	// arguments.
	"#![cfg_attr(docsrs, feature(doc_cfg))]\nmod m {\n" + strings.Repeat("    /// Compare.\n    #[inline]\n    #[cfg(any(feature = \"a\", test))]\n"+
		"    pub fn compare<T: Ord>(x: &[T], y: &[T]) -> cmp::Ordering where T: Copy {\n        x.cmp(y)\n    }\n", 40) + "}\n",
	// Use declarations, their imports read from the source.
	"use std::{\n    fmt, // formatting\n    io::{self, Read as R},\n};\npub use crate::a::*;\nuse ::core::mem;\n\nfn f() {\n    use std::x::y;\n    y()\n}\n",
	// macro_rules!: a small definition, and one large enough to be cut.
	"#[macro_export]\nmacro_rules! small {\n    ($e:expr) => { $e + 1 };\n}\n\nmacro_rules! large {\n" +
		strings.Repeat("    (@a $x:ident) => {\n        fn $x() {}\n    };\n", 80) + "}\n",
}

// TestMaskRustComments: a run of line comments alone on consecutive rows
// before an item is read as one block comment over the same bytes; other
// runs are left as they are.
func TestMaskRustComments(t *testing.T) {
	src := "/// A.\n/// B.\n#[inline]\npub fn a() { 1 }\n// one\n// two\nm!(x);\nfn b() {} // after\n// c\nfn c() {}\n"
	want := "/*    \n    */\n#[inline]\npub fn a() {   }\n// one\n// two\nm!( );\nfn b() {} // after\n// c\nfn c() {}\n"
	checkMaskedAs(t, maskRustBodies, src, want)
	crlf := strings.ReplaceAll(src, "\n", "\r\n")
	wantCRLF := "/*     \n    */\r\n#[inline]\r\npub fn a() {   }\r\n// one\r\n// two\r\nm!( );\r\nfn b() {} // after\r\n// c\r\nfn c() {}\r\n"
	checkMaskedAs(t, maskRustBodies, crlf, wantCRLF)
}

// TestMaskRustMacros: a macro's call is blanked between its brackets
// when it is small, or a large item of the file; a large call elsewhere
// is read on, and the bodies of its functions masked.
func TestMaskRustMacros(t *testing.T) {
	big := strings.Repeat("    x y z\n", 60)
	fns := strings.Repeat("    fn f() { g!(1) }\n", 60)
	masked := strings.Repeat("    fn f() {       }\n", 60)
	for _, c := range []struct{ src, want string }{
		{"m!(a, b);\nfn f() { m!(x) }\n", "m!(    );\nfn f() {       }\n"},
		{"a::b![1];\nconst C: bool = x!= y;\n", "a::b![ ];\nconst C: bool = x!= y;\n"},
		{"//! Docs.\n#[cfg(x)]\nm! {\n" + big + "}\n", "//! Docs.\n#[cfg( )]\nm! {\n" + blankText(big) + "}\n"},
		{"use a;\n\nm! {\n" + fns + "}\n", "use a;\n\nm! {\n" + blankText(fns) + "}\n"},
		{"impl S {\n    m! {\n" + fns + "}\n}\n", "impl S {\n    m! {\n" + masked + "}\n}\n"},
	} {
		checkMaskedAs(t, maskRustBodies, c.src, c.want)
	}
	// Large calls that are no item of the file are left as they are.
	checkRefuses(t, maskRustBodies, []string{
		"type X =\n    m! {\n" + big + "};\n",
		"static S: u8 = 1; m! {\n" + big + "}\n",
		"impl S {\n    m! {\n" + big + "}\n}\n",
	})
}

// FuzzMaskRustBodies: masking keeps every byte's offset and every
// newline, blanks bytes between braces and turns runs of line comments
// into block comments, and masking again changes nothing.
func FuzzMaskRustBodies(f *testing.F) {
	for _, s := range rustMaskCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkMasked(t, maskRustBodies, src, " /*") })
}
