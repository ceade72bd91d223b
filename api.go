package mss

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Defaults shared by every method.
const (
	DefaultBudget   = 6144 // source tokens delivered per answer
	DefaultMaxUnits = 8
	DefaultMinUnits = 4
)

// Unit is an intact, provenance-preserving piece of source: a function, a
// class header with its fields, a run of module-level statements, or a line
// window of a file no grammar covers. Lines are 1-based and inclusive.
type Unit struct {
	ID        string `json:"id"`
	Path      string `json:"path"` // repository-relative, forward slashes
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"` // symbol path, e.g. Class.method
	Kind      string `json:"kind,omitempty"`   // function, method, class, module, window, ...
	Language  string `json:"language,omitempty"`
	// Content is the unit's lines as the file holds them. In JSON, a
	// Content that is not UTF-8 also travels whole in content_bytes
	// (MarshalJSON).
	Content string `json:"content,omitempty"`
	Hash    string `json:"hash,omitempty"` // hex sha256 of Content
	Tokens  int    `json:"tokens"`         // TokenCost(Content)

	// Symbols lists every symbol a delivered unit holds, unit by unit in
	// line order (a unit grown into its neighbours holds several); a
	// unit named for nothing (a run of module statements) gives the
	// names it defines, in alphabetical order.
	Symbols []string `json:"symbols,omitempty"`

	// What the unit knows about names, filled by repository segmentation;
	// empty for pool units.
	Defines    []string `json:"defines,omitempty"`
	References []string `json:"references,omitempty"`
	Imports    []string `json:"imports,omitempty"`

	// Context is the signature a unit is read under, so it can be read
	// in place: on the later parts of a definition split for size, the
	// definition's signature lines; on a class's members (a method, a
	// nested class, the fields between them), the class's. It is not
	// part of Content and costs no Tokens.
	Context string `json:"context,omitempty"`
	// ContextLine is the line Context starts at in the file, set when a
	// delivered unit's Context is checked against the source (a Context
	// the file does not hold above the unit is not delivered).
	ContextLine int `json:"context_line,omitempty"`
}

// Span names lines of a file an agent has seen.
type Span struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"`
}

// Span gives the lines the unit holds, as a span of its file.
func (u *Unit) Span() Span {
	return Span{Path: u.Path, StartLine: u.StartLine, EndLine: u.EndLine}
}

// Overlaps reports whether the unit shares a line with the span on the same path.
func (u *Unit) Overlaps(s Span) bool {
	return u.Path == s.Path && u.StartLine <= s.EndLine && u.EndLine >= s.StartLine
}

// State is the normalized agent state (the state card). Field names follow
// SERBench and the repository track, so a state file from either loads as is.
type State struct {
	StateID            string   `json:"state_id"`
	ItemID             string   `json:"item_id,omitempty"`
	InstanceID         string   `json:"instance_id,omitempty"`
	Repo               string   `json:"repo,omitempty"`
	BaseCommit         string   `json:"base_commit,omitempty"`
	Split              string   `json:"split,omitempty"`
	StateType          string   `json:"state_type,omitempty"`
	Issue              string   `json:"issue"`
	InformationNeed    string   `json:"information_need,omitempty"`
	CurrentObservation string   `json:"current_observation,omitempty"`
	CurrentHypothesis  string   `json:"current_hypothesis,omitempty"`
	CurrentSubgoal     string   `json:"current_subgoal,omitempty"`
	CurrentDiff        string   `json:"current_diff,omitempty"`
	LatestTestOutput   string   `json:"latest_test_output,omitempty"`
	OpenedFiles        []string `json:"opened_files,omitempty"`
	SearchQueries      []string `json:"search_queries,omitempty"`
	// ObservedSpans are the source lines already read (repository track,
	// agent sessions). ObservedEvidenceIDs are pool unit ids already read
	// (pool track).
	ObservedSpans       []Span            `json:"observed_spans,omitempty"`
	ObservedEvidenceIDs []string          `json:"observed_evidence_ids,omitempty"`
	TrajectoryPrefix    []json.RawMessage `json:"trajectory_prefix,omitempty"`
}

// Group is one required piece of evidence in a certificate: any
// MinimumRequired distinct acceptable units satisfy it.
type Group struct {
	GroupID         string   `json:"group_id"`
	AcceptableIDs   []string `json:"acceptable_evidence_ids"`
	MinimumRequired int      `json:"minimum_required"`
	NecessityWeight float64  `json:"necessity_weight"`
	Role            string   `json:"role,omitempty"`
}

// Certificate is AND over Groups, or any one complete alternative set (OR).
type Certificate struct {
	StateID         string     `json:"state_id"`
	Groups          []Group    `json:"required_evidence_groups"`
	AlternativeSets [][]string `json:"alternative_minimal_sets,omitempty"`
	ObservedIDs     []string   `json:"observed_evidence_ids,omitempty"`
}

// Candidate is a unit offered to a controller, with the fused rank and the
// per-view evidence that put it there.
type Candidate struct {
	Unit     Unit               `json:"unit"`
	Score    float64            `json:"score"`              // fused score, higher is better
	Views    map[string]int     `json:"views,omitempty"`    // view name -> 1-based rank in that view
	Signals  map[string]float64 `json:"signals,omitempty"`  // raw per-view scores, for explanations
	Observed bool               `json:"observed,omitempty"` // the agent has already read it
}

// Request is what every controller receives.
type Request struct {
	State      *State
	Candidates []Candidate // fused order, best first
	Budget     int         // source-token budget; 0 means DefaultBudget
	MaxUnits   int         // 0 means DefaultMaxUnits
	MinUnits   int         // 0 means DefaultMinUnits
	// Mentions are what retrieval derived from the state's text, so a
	// policy reads the state as retrieval read it, once; nil when the
	// candidates came from elsewhere (the policy derives them itself).
	Mentions *Mentions
	// Source, when set, gives every unit of a file, so a policy can deliver
	// a chosen unit with its intact surroundings. Repository engines set it;
	// a supplied pool leaves it nil.
	Source UnitSource
}

// UnitSource lists the units of a file in line order.
type UnitSource interface {
	FileUnits(path string) []Unit
}

// Limits returns the request's budget and unit bounds with defaults applied.
func (r *Request) Limits() (budget, minUnits, maxUnits int) {
	budget, minUnits, maxUnits = r.Budget, r.MinUnits, r.MaxUnits
	if budget <= 0 {
		budget = DefaultBudget
	}
	if maxUnits <= 0 {
		maxUnits = DefaultMaxUnits
	}
	if minUnits <= 0 {
		minUnits = DefaultMinUnits
	}
	if minUnits > maxUnits {
		minUnits = maxUnits
	}
	return budget, minUnits, maxUnits
}

// TraceStep records why a unit was chosen or dropped, or what a stage did.
type TraceStep struct {
	Stage  string `json:"stage"` // e.g. "requirements", "select", "render", "propose"
	UnitID string `json:"unit_id,omitempty"`
	Reason string `json:"reason"`
}

// Result is a controller's answer: units in delivery order, within budget.
type Result struct {
	Units  []Unit      `json:"units"`
	Method string      `json:"method"`
	Config string      `json:"config,omitempty"` // method configuration (or its hash)
	Trace  []TraceStep `json:"trace,omitempty"`
	// Usage is filled by controllers that call models.
	Usage *Usage `json:"usage,omitempty"`
	// Fallback is set when a model-calling method could not get its answer
	// from the model and answered with its deterministic fallback instead.
	Fallback *Fallback `json:"fallback,omitempty"`
}

// Fallback says which stage of a model-calling method failed and why; the
// units then come from the fallback policy, not from the model.
type Fallback struct {
	Stage  string `json:"stage"`
	Reason string `json:"reason"`
}

// Usage accounts for model calls made while answering.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"` // part of CompletionTokens
	Calls            int `json:"calls"`
	// FailedCalls counts calls that got no reply (an HTTP or transport
	// error, after the client's retries); they are not in Calls.
	FailedCalls int            `json:"failed_calls,omitempty"`
	Fallbacks   int            `json:"fallbacks"`
	Stages      map[string]int `json:"stages,omitempty"` // stage -> total tokens
	LatencyMS   int64          `json:"latency_ms"`

	// StageUsage details each stage's calls, in stage order.
	StageUsage []StageUsage `json:"stage_usage,omitempty"`
	// SourceTokens is the cost of the delivered units, kept apart from the
	// controller's own prompt and completion tokens.
	SourceTokens int `json:"source_tokens,omitempty"`
	// RejectedIDs counts ids a model returned that were not offered to it.
	RejectedIDs int `json:"rejected_ids,omitempty"`
}

// StageUsage accounts for the model calls of one stage of one answer.
type StageUsage struct {
	Stage            string `json:"stage"`
	Model            string `json:"model,omitempty"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	ReasoningTokens  int    `json:"reasoning_tokens,omitempty"` // part of CompletionTokens
	LatencyMS        int64  `json:"latency_ms"`
}

// Add counts o's calls, tokens and latency into s (names are kept).
func (s *StageUsage) Add(o StageUsage) {
	s.Calls += o.Calls
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.ReasoningTokens += o.ReasoningTokens
	s.LatencyMS += o.LatencyMS
}

// Controller is the one shape of every evidence-selection method: state,
// candidates and budget in; ordered units and a trace out. Same input, same
// output, byte for byte, unless the method calls a sampling model.
type Controller interface {
	Name() string
	Select(ctx context.Context, req *Request) (*Result, error)
}

// MethodOptions configures a method built by name.
type MethodOptions struct {
	// Settings are method-specific key/value options (from flags or files).
	Settings map[string]string
}

// OperationalSetting reports whether a setting changes how a run is
// carried out but not what any method answers: where model responses are
// cached (cache_dir), whether the network may be used (cache_only, which
// --cache-only sets), how many calls run at once (concurrency), and what
// tokens cost (price.<model>). Every method of a command is given the
// same settings; these are neither read nor refused by a method that
// calls no model, and are left out of the configuration recorded with
// predictions, so that a replay from the cache writes the same bytes as
// the run that filled it.
func OperationalSetting(k string) bool {
	switch k {
	case "cache_dir", "cache_only", "concurrency":
		return true
	}
	return strings.HasPrefix(k, "price.")
}

// MethodFactory builds a controller.
type MethodFactory func(opts MethodOptions) (Controller, error)

var (
	methodsMu sync.RWMutex
	methods   = map[string]methodEntry{}
)

type methodEntry struct {
	factory MethodFactory
	help    string
}

// RegisterMethod makes a controller available by name. It panics on a
// duplicate name, as that is a programming error found at init.
func RegisterMethod(name, help string, f MethodFactory) {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if _, dup := methods[name]; dup {
		panic("mss: method registered twice: " + name)
	}
	methods[name] = methodEntry{f, help}
}

// NewMethod builds the registered controller called name.
func NewMethod(name string, opts MethodOptions) (Controller, error) {
	methodsMu.RLock()
	e, ok := methods[name]
	methodsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown method %q (known: %v; package controller registers the built-in methods, package semantic the model methods, each when imported)", name, Methods())
	}
	return e.factory(opts)
}

// Methods lists registered method names, sorted.
func Methods() []string {
	methodsMu.RLock()
	defer methodsMu.RUnlock()
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// MethodHelp returns the one-line description of a registered method.
func MethodHelp(name string) string {
	methodsMu.RLock()
	defer methodsMu.RUnlock()
	return methods[name].help
}

// TokenCost is the source-token cost of text: ceil(bytes/4). A unit's text
// is its lines, each with its newline, which is how the benchmarks count.
func TokenCost(content string) int { return BytesCost(len(content)) }

// BytesCost is TokenCost of text n bytes long, for a cost counted without
// the text at hand.
func BytesCost(n int) int { return (n + 3) / 4 }
