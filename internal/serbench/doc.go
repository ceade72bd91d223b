// Package serbench reads, validates, scores and compares runs on the
// SERBench pool track: agent states with a supplied candidate pool, their
// minimal-sufficient-evidence certificates, and ranked predictions.
//
// The file formats are those of the public SERBench release
// (serbench-public-v1-v5.6): JSON Lines, optionally gzip-compressed, one
// object per line. Items carry the state card and its candidate_evidence
// pool; labels carry required_evidence_groups, alternative_minimal_sets and
// observed_evidence_ids, either at the top level or nested under
// graded_labels; predictions carry state_id, method and
// ranked_evidence_ids, plus an optional config object recording how the
// method was configured.
//
// Validation follows the release contract rule for rule (see Validate) and
// reports every violation with its file, line and field. Scoring follows
// the release's reference scorer formula for formula (see Score): top-k
// prefixes are taken as returned, never masked or backfilled; distinct
// acceptable ids count toward a group's minimum_required; a certified
// alternative set completes a state on its own; group_ndcg divides by the
// exact certificate-aware ideal DCG. Means over states are computed exactly
// and rounded once, as Python's statistics.mean does, so a summary is equal
// bit for bit to the reference summary on the same input.
package serbench
