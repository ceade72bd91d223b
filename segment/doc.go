// Package segment cuts source files into intact units: the functions,
// methods, class headers and module-level statement runs an agent reads and
// a benchmark scores, each with its line range, symbol path and the names it
// defines, references and imports.
//
// # Algorithm
//
// A file with a grammar (Python, Go, JavaScript, TypeScript, TSX, Java,
// Rust, C, C++) is parsed with tree-sitter and walked from the root:
//
//   - A function or method becomes one unit, together with the comments,
//     decorators and attributes directly above it (no blank line between).
//     Functions nested in functions stay inside their parent.
//   - A class (struct with methods, impl block, trait, interface in Java)
//     yields one unit per member definition; its remaining lines, the
//     header and the fields, become "class" units named for the class.
//   - Small type definitions (Go type declarations, Rust structs, C
//     structs, TypeScript interfaces) stay whole as "type" units.
//   - A JavaScript or TypeScript constant bound to an object or array
//     literal of three lines or more (a named table) is a "value" unit.
//   - Namespaces, preprocessor conditionals, extern blocks and modules are
//     looked through: their definitions become units, their other lines join
//     the enclosing run. So is the body of an anonymous function a
//     JavaScript module wraps its code in (export default (...) => {...},
//     an immediately invoked function), when it returns nothing: a body
//     that returns a value (a component, a factory) is one function.
//   - C and C++ annotation macros the grammar cannot expand
//     (FMT_BEGIN_NAMESPACE, FMT_CONSTEXPR, UV_EXTERN) are blanked for a
//     second parse, kept when it fits the grammar better (maskMacros).
//   - Python, Go, Rust and Java are parsed with their function bodies
//     masked: their statements become cheap code over the same bytes,
//     which gives the same units for less of tree-sitter's work (mask.go).
//   - Every other line belongs to a "module" unit: a run of module-level
//     statements (imports, constants, top-level code) between definitions.
//
// Units tile the file: every non-blank line belongs to exactly one unit and
// units never start or end with a blank line. A run made only of closing
// brackets (a class's final "}") joins the unit before it rather than
// standing alone.
//
// A unit longer than maxLines lines or maxTokens tokens is split at
// statement boundaries: the candidate cut lines are the starts of the
// statements of its body, descending into statements that are themselves
// too long, and the unit is cut into balanced parts at those lines, falling
// back to plain line cuts only where no statement boundary is near. Parts
// keep the definition's symbol and kind; the first part holds the
// signature, the later ones carry it as Context. Module runs use the
// smaller moduleMaxLines/moduleMaxTokens; a later part of one that starts
// inside a long statement carries that statement's first lines.
//
// Syntax errors do not stop this: tree-sitter recovers, and error nodes
// are looked through like namespaces. Files with no grammar
// (configuration, documentation, templates), files that do not parse (more
// than one non-blank line in maxErrorDensity in a syntax error: not in
// the grammar's language) and files whose parse fails are cut into line
// windows of at most windowLines lines, preferring to cut after a blank
// line. Nothing is dropped silently: the Result says which path a file
// took.
//
// # Names
//
// Defines come from the tree: a definition's name, and the names that
// module and class runs assign or declare. References and calls come from
// lexing each unit's text (comments, strings and keywords skipped; an
// identifier followed by "(" is a call), which finds the identifiers the
// tree holds at a fraction of the cost of visiting every node through cgo.
// Imports come from the import statements met while walking the tree, and
// for Python from import lines anywhere (imports inside functions).
//
// # Content and identity
//
// A unit's Content is exactly its lines, each followed by "\n" (also the
// last, when the file lacks a final newline), so Tokens = mss.TokenCost
// (Content) is the ceil(bytes/4) cost the benchmarks charge. Hash is the
// hex SHA-256 of Content; ID is the first 16 hex digits of the SHA-256 of
// path, start line, end line and Hash, so an unchanged unit at an unchanged
// place keeps its id across re-indexing.
package segment
