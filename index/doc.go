// Package index turns a repository (a work tree, or a commit of a git
// directory) into a searchable store of source units: one SQLite file
// holding every unit of package segment with its content and names, the
// files it came from with their git blob ids, and an FTS5 table of
// code-aware terms.
//
// Build creates or incrementally updates an index, atomically; Open reads
// one. The file format is specified at the top of read.go, the build's
// atomicity and incrementality at the top of write.go.
package index
