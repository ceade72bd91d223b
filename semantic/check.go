package semantic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
)

// StageCheck is what Check found for one stage of mss-complement.
type StageCheck struct {
	Stage   string `json:"stage"`
	Model   string `json:"model"`
	BaseURL string `json:"base_url"` // userinfo masked
	// Shape is the request shape that got the reply (token field, dropped
	// fields, response format), Adjustments the refusals that led to it
	// from the configured shape, now or in an earlier run.
	Shape       llm.Shape      `json:"shape"`
	Adjustments []string       `json:"adjustments,omitempty"`
	LatencyMS   int64          `json:"latency_ms"`
	Attempts    int            `json:"attempts"`
	Usage       mss.StageUsage `json:"usage"`
	// Valid is true when the reply is one JSON object that validates
	// against the stage's schema (ids within the offered enum included).
	Valid   bool   `json:"valid"`
	Problem string `json:"problem,omitempty"` // why not, or the call's error
}

// checkState and checkUnits are the tiny request Check sends: a state and
// four candidates, enough for every stage's prompt and schema.
var checkState = &mss.State{
	StateID:            "llm-check",
	Issue:              "load_config ignores the MSS_PORT environment variable; the server always starts on 8080.",
	InformationNeed:    "where the port is read and where the default is applied",
	CurrentObservation: "start() calls load_config() and passes cfg.port to listen().",
}

var checkUnits = []mss.Unit{
	{ID: "u1", Path: "app/config.py", StartLine: 10, EndLine: 16, Symbol: "load_config", Kind: "function", Content: "def load_config(env=os.environ):\n    cfg = Config(**DEFAULTS)\n    if 'PORT' in env:\n        cfg.port = int(env['PORT'])\n    return cfg\n"},
	{ID: "u2", Path: "app/config.py", StartLine: 1, EndLine: 5, Symbol: "DEFAULTS", Kind: "module", Content: "import os\n\nDEFAULTS = {'port': 8080, 'host': '127.0.0.1'}\n"},
	{ID: "u3", Path: "app/server.py", StartLine: 20, EndLine: 25, Symbol: "start", Kind: "function", Content: "def start():\n    cfg = load_config()\n    listen(cfg.host, cfg.port)\n"},
	{ID: "u4", Path: "tests/test_config.py", StartLine: 1, EndLine: 6, Symbol: "test_port_from_env", Kind: "function", Content: "def test_port_from_env():\n    cfg = load_config({'MSS_PORT': '9000'})\n    assert cfg.port == 9000\n"},
}

// Check sends each stage of mss-complement the exact structured request
// that stage sends (its prompt, its schema with an enum of ids, its
// response format and request shape), over a tiny candidate list, and
// reports per stage what worked. It makes real calls, never from the
// response cache; learned request shapes are kept as in a run. The error
// is for a configuration that cannot be checked (no model, no key); a
// stage that fails is reported in its StageCheck.
func Check(ctx context.Context, opts mss.MethodOptions) ([]StageCheck, error) {
	cfg, err := ParseConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.needModels(stageNames...); err != nil {
		return nil, err
	}
	for _, name := range stageNames {
		sc := cfg.Stage(name)
		if sc.apiKey == "" {
			return nil, fmt.Errorf("stage %s: no API key for %s: set MSS_LLM_API_KEY (or MSS_%s_API_KEY) in the environment; for a local server without keys set it to any value", name, llm.RedactURL(sc.BaseURL), upper(name))
		}
	}
	// Same clients as a run, without the response cache: a check must
	// reach the endpoint.
	live := *cfg
	live.CacheOnly = false
	cl := map[string]*llm.Client{}
	lim := sharedLimiter(cfg.Concurrency)
	for _, st := range stageNames {
		c, err := llm.New(live.llmConfig(live.Stage(st)), nil, lim)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", st, err)
		}
		cl[st] = c
	}
	c := &Complement{&base{name: NameComplement, cfg: &live, clients: cl}}

	req := &mss.Request{State: checkState}
	for _, u := range checkUnits {
		u.Tokens = mss.TokenCost(u.Content)
		req.Candidates = append(req.Candidates, mss.Candidate{Unit: u})
	}
	el := eligible(req)
	state := stateCard(req.State, cfg.StateChars)
	prop := cardsOf(el[:2], "proposal")
	calls := []*stageCall{
		c.proposeCall(state, el, 2),
		c.expandCall(state, prop, []string{"the test that sets the variable"}, el[2:]),
		c.finalizeCall(state, append(prop, cardsOf(el[2:], "reserve")...), 2, 4),
	}
	out := make([]StageCheck, len(calls))
	for i, sc := range calls {
		out[i] = checkStage(ctx, sc)
	}
	return out, nil
}

// checkStage makes one stage's call once (no repair round) and validates
// the reply.
func checkStage(ctx context.Context, sc *stageCall) StageCheck {
	r := StageCheck{Stage: sc.stage, Model: sc.client.Model(), BaseURL: sc.client.BaseURL(), Shape: sc.client.Shape()}
	start := time.Now()
	resp, err := sc.client.Complete(ctx, &llm.Request{
		Messages: []llm.Message{{Role: "system", Content: sc.system}, {Role: "user", Content: sc.user}},
		Schema:   sc.schema,
	})
	r.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		r.Shape = sc.client.Shape()
		r.Problem = err.Error()
		if ce := (*llm.CallError)(nil); errors.As(err, &ce) {
			r.Attempts = ce.Attempts
		} else if re := (*llm.ReplyError)(nil); errors.As(err, &re) {
			r.Attempts = re.Attempts
		}
		return r
	}
	r.Shape, r.Adjustments, r.Attempts = resp.Shape, resp.Adjustments, resp.Attempts
	r.Usage = mss.StageUsage{Stage: sc.stage, Model: sc.client.Model(), Calls: 1, PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens, ReasoningTokens: resp.ReasoningTokens, LatencyMS: resp.LatencyMS}
	raw, err := llm.ExtractJSON(resp.Content)
	if err != nil {
		r.Problem = "reply holds no JSON object: " + oneLine(resp.Content, 120)
		return r
	}
	if err := llm.ValidateJSON(sc.schema.Schema, raw); err != nil {
		r.Problem = "reply does not validate: " + err.Error()
		return r
	}
	picks, _, err := parseReply(resp.Content, sc.list)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	if len(picks) == 0 && !sc.allowEmpty {
		r.Problem = fmt.Sprintf("field %q is empty", sc.list)
		return r
	}
	r.Valid = true
	return r
}

// CheckReport prints checks as a table, one line per stage, then the
// adjustments and problems, each on its own line.
func CheckReport(checks []StageCheck) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %-7s %-12s %-44s %9s %8s  %s\n", "stage", "result", "format", "request", "latency", "attempts", "reply")
	for _, c := range checks {
		res, reply := "ok", "schema-valid"
		if !c.Valid {
			res, reply = "FAIL", "no valid answer"
		}
		req := c.Shape.String()
		if i := strings.LastIndex(req, ", "); i >= 0 {
			req = req[:i] // the format has its own column
		}
		fmt.Fprintf(&b, "%-9s %-7s %-12s %-44s %6d ms %8d  %s\n", c.Stage, res, c.Shape.Mode, req, c.LatencyMS, c.Attempts, reply)
	}
	for _, c := range checks {
		for _, a := range c.Adjustments {
			fmt.Fprintf(&b, "%s: endpoint %s\n", c.Stage, a)
		}
		if c.Problem != "" {
			fmt.Fprintf(&b, "%s: %s\n", c.Stage, c.Problem)
		}
	}
	return b.String()
}
