// Package index turns a repository (a work tree, or a commit of a git
// directory) into a searchable store of source units: one SQLite file
// holding every unit of package segment with its content and names and
// the files it came from with their git blob ids, and beside it the
// retrieval structures derived from all units (package retrieve's
// Deriver: BM25 postings of code-aware terms, name tables, edges and
// more).
//
// Build creates or incrementally updates an index, atomically; Open reads
// one. The file format is specified at the top of read.go, the build's
// atomicity and incrementality at the top of write.go.
package index
