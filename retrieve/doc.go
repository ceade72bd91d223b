// Package retrieve ranks the units of a repository snapshot (or of a
// supplied pool) for an agent state. It is the candidate stage of mss: the
// controllers in package controller choose sets from what it returns.
//
// Several views each rank units from one kind of evidence:
//
//   - lexical: BM25 over unit content, symbol path and file path;
//   - entity: identifiers, dotted names, file paths and stack-trace frames
//     the state names, matched to the units that define them;
//   - structural: callers, callees, same-name twins, siblings and
//     similarly named units of the anchors (observed units and the best
//     entity matches);
//   - recency: units near what the agent read last;
//   - history: files that changed together with the anchors, and files of
//     past commits whose messages match the state, before the base commit;
//   - semantic: cosine over repository-local term vectors learned by
//     reflective random indexing (no model needed);
//   - embedding: cosine over vectors from an OpenAI-compatible endpoint,
//     only when MSS_EMBED_BASE_URL and MSS_EMBED_MODEL are set.
//
// The views' ranks are fused by weighted reciprocal rank (named weight
// constants in fuse.go) and multiplied by a path-class prior that ranks
// tests, documentation, examples and vendored or generated code below
// source. Every candidate carries its per-view ranks and contributions, so
// an answer can be explained. Everything is deterministic: ties break by
// unit order (path, then line), and maps are walked in sorted order.
package retrieve
