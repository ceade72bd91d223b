// Package controller holds the deterministic evidence-selection methods of
// mss, registered by name in the root method registry:
//
//   - complement (the embedded default): derives the state's unresolved
//     requirements and chooses units jointly so that every requirement is
//     covered, by coverage-driven greedy selection with redundancy and size
//     penalties, spending nothing on evidence the agent already read;
//   - bm25: the lexical view's order, as a retriever ranks;
//   - rrf: the fused order, top k, observed units skipped;
//   - mmr: maximal marginal relevance over the fused order, observed units
//     skipped;
//   - similarity: the independent-similarity control, the fused order with
//     a fixed 7-unit output and no state-aware exclusion.
//
// bm25 and similarity rank as retrievers rank: they do not know what the
// agent read. rrf and mmr get complement's exclusion of observed units, so
// a comparison of complement with them isolates the set objective.
//
// Import the package for its side effect to register the methods:
//
//	import _ "github.com/missingcomplement/mss/controller"
package controller
