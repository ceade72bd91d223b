// Package server serves mss to coding agents: one Service per repository
// work tree, reached over MCP (stdio or streamable HTTP, see NewMCPServer)
// and over a small JSON HTTP API (see NewHandler).
//
// A Service holds the current Snapshot (index plus retrieval engine) behind
// a read/write lock, so many requests read one snapshot while a new one is
// built; the swap takes the write lock only for the pointer exchange.
//
// Freshness: agents edit the tree they ask about. Before answering, the
// Service stats the work tree (size and modification time of every file,
// at most once per ScanInterval) and, when anything changed, re-indexes
// incrementally and swaps in the new snapshot. After choosing units it
// also compares each unit's text with the file on disk; a mismatch forces
// a re-index and a second answer, so evidence never carries stale line
// numbers.
//
// Sessions remember, per agent session, the spans delivered and the spans
// the agent reported reading; a later request treats them as observed, so
// the complement does not repeat itself. Sessions expire after an idle TTL,
// their number is bounded with least-recently-used eviction, and each keeps
// at most MaxSpans spans (the oldest are forgotten first).
//
// Safety: paths from requests must be repository-relative (no "..", no
// absolute paths) and files are opened through os.Root, which refuses
// symbolic links that leave the work tree. Listeners bind to loopback
// unless remote access is allowed explicitly, HTTP requests may require a
// bearer token, and nothing from the repository is ever executed.
package server
