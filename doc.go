// Package mss holds the types every part of mss meets at: source units,
// state cards, certificates, candidates, and the Controller interface that
// every evidence-selection method implements.
//
// mss answers one question for a coding agent part-way through an issue:
// given what the agent has already read and what its next decision needs,
// which few intact source units (4–8, within a token budget) complete the
// evidence? Relevance is scored per passage, but sufficiency belongs to the
// set, so a Controller returns an ordered set, not a ranking of passages.
//
// Candidates come either from a supplied pool (the SERBench pool track) or
// from a repository index; controllers do not care which.
package mss
