package mss

// Mentions are the facets a state names in its text: identifiers, file
// paths and stack-trace frames. They are what the entity view matches
// against definitions and what the complement policy turns into
// requirements. Retrieval derives them once per request
// (retrieve.ExtractText) and hands them to the policy in Request.Mentions.
type Mentions struct {
	// Idents maps each identifier as written to how strongly the state
	// names it (occurrences, boosted for code-looking names and frames).
	Idents map[string]float64
	// Code marks the identifiers written as code: with underscores or
	// inner capitals, in backticks, in a frame, or part of a dotted name.
	// The rest are words that happen to be identifiers too.
	Code map[string]bool
	// Called marks the identifiers written with call syntax ("name(").
	Called map[string]bool
	// Qualified are dotted names (a.b.C.m) as written, in order of first
	// appearance.
	Qualified []string
	// Paths are source paths named anywhere in the text, normalized to
	// forward slashes, in order of first appearance.
	Paths []string
	// Frames are stack-trace frames, outermost first as they appear.
	Frames []Frame
	// Unread says what of the text the views did not read (an issue
	// template's comments, listings and markup), one part a line, in the
	// order of the text.
	Unread []string
}

// Frame is one stack-trace frame: a source path, a line (0 when unknown)
// and the function (empty when the format does not name it).
type Frame struct {
	Path string
	Line int
	Func string
}
