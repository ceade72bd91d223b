package semantic

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/llm"
)

// Stage names. Each has its own endpoint, model, temperature and timeout.
const (
	StagePropose  = "propose"
	StageExpand   = "expand"
	StageFinalize = "finalize"
)

// stageNames in call order.
var stageNames = []string{StagePropose, StageExpand, StageFinalize}

// Defaults of Config; docs/llm.md lists them with their setting keys.
const (
	DefaultBaseURL          = "https://api.openai.com/v1"
	DefaultTemperature      = 0.0
	DefaultProposeCands     = 24
	DefaultProposeExcerpt   = 900
	DefaultProposeSize      = 8
	DefaultExpandCands      = 24
	DefaultExpandExcerpt    = 300
	DefaultExpandSize       = 4
	DefaultFinalizeReserve  = 8
	DefaultFinalizeExcerpt  = 600
	DefaultSSRCands         = 40
	DefaultSSRExcerpt       = 600
	DefaultSimilarityCands  = 48
	DefaultSimilarityKeep   = 7
	DefaultSimilarityExcerp = 400
	DefaultStateChars       = 3000
	DefaultParseRetries     = 1
	DefaultConcurrency      = 4
	DefaultFallback         = "complement"
)

// StageConfig is the endpoint and model of one stage.
type StageConfig struct {
	BaseURL     string  `json:"base_url"` // userinfo masked before hashing
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
	// OmitTemperature sends no temperature: the default, since current
	// reasoning models accept only their own. A temperature setting clears it.
	OmitTemperature bool   `json:"omit_temperature,omitempty"`
	MaxTokens       int    `json:"max_tokens"` // 0 sends no cap
	MaxTokensField  string `json:"max_tokens_field"`
	// ReasoningEffort is passed through as reasoning_effort when set.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// APIVersion is sent as the api-version query parameter (Azure).
	APIVersion string        `json:"api_version,omitempty"`
	Auth       string        `json:"-"` // bearer or api-key; "" picks by host
	Timeout    time.Duration `json:"-"` // operational: not in the hash
	apiKey     string        // from the environment only
	keyVar     string        // the environment variable it came from
}

// Config is every knob of the semantic controllers. Fields tagged "-" are
// operational (they change how calls are made, not what is asked) and are
// left out of the configuration hash.
type Config struct {
	Propose  StageConfig `json:"propose"`
	Expand   StageConfig `json:"expand"`
	Finalize StageConfig `json:"finalize"`

	ProposeCandidates   int      `json:"propose_candidates"`    // leading candidate cards the proposer reads
	ProposeExcerpt      int      `json:"propose_excerpt_chars"` // excerpt chars per proposer card
	ProposeSize         int      `json:"propose_size"`          // units the proposal may hold
	ExpandCandidates    int      `json:"expand_candidates"`     // further candidate summaries the expander reads
	ExpandExcerpt       int      `json:"expand_excerpt_chars"`
	ExpandSize          int      `json:"expand_size"`      // units the expansion may add
	FinalizeReserve     int      `json:"finalize_reserve"` // ranked reserve units shown to the finalizer
	FinalizeExcerpt     int      `json:"finalize_excerpt_chars"`
	SSRCandidates       int      `json:"ssr_candidates"`
	SSRExcerpt          int      `json:"ssr_excerpt_chars"`
	SimilarityCandidate int      `json:"similarity_candidates"` // split round-robin over three calls
	SimilarityKeep      int      `json:"similarity_keep"`       // fixed output size
	SimilarityExcerpt   int      `json:"similarity_excerpt_chars"`
	StateChars          int      `json:"state_chars"` // cap on each long state field
	ParseRetries        int      `json:"parse_retries"`
	Mode                llm.Mode `json:"response_format"`
	Seed                *int64   `json:"seed,omitempty"`
	Fallback            string   `json:"fallback"`
	// Grow spends what the chosen set leaves of the budget on the chosen
	// units' intact surroundings, only on neighbours tied to the state or
	// to the chosen unit (controller.Grow, the growth stage of every
	// embedded method); mss-complement only.
	Grow bool `json:"grow"`

	Retries     int               `json:"-"`
	Backoff     time.Duration     `json:"-"`
	BackoffMax  time.Duration     `json:"-"`
	Concurrency int               `json:"-"`
	CacheDir    string            `json:"-"`
	CacheOnly   bool              `json:"-"`
	Labels      string            `json:"-"` // oracles only
	FallbackOpt map[string]string `json:"-"` // fallback.* settings, prefix removed
}

// Stage returns the configuration of a stage by name.
func (c *Config) Stage(name string) *StageConfig {
	switch name {
	case StagePropose:
		return &c.Propose
	case StageExpand:
		return &c.Expand
	case StageFinalize:
		return &c.Finalize
	}
	return nil
}

// Hash is a short hash of everything that determines what is asked. URL
// userinfo is masked first: it is a credential, not a question.
func (c *Config) Hash() string {
	h := *c
	for _, st := range stageNames {
		sc := h.Stage(st)
		sc.BaseURL = llm.RedactURL(sc.BaseURL)
	}
	b, err := json.Marshal(&h)
	if err != nil {
		// Config holds only plain fields; Marshal cannot fail.
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// Describe is the Result.Config string: the hash and the models.
func (c *Config) Describe() string {
	return fmt.Sprintf("h=%s propose=%s expand=%s finalize=%s", c.Hash(), c.Propose.Model, c.Expand.Model, c.Finalize.Model)
}

// settingKeys are the accepted keys; stage-scoped keys take a "propose.",
// "expand.", "finalize." or "fast." (expand and finalize) prefix.
var (
	globalKeys = []string{"base_url", "model", "temperature", "timeout", "max_tokens", "max_tokens_field", "reasoning_effort", "api_version", "auth", "retries", "backoff", "backoff_max",
		"response_format", "seed", "grow", "cache_dir", "cache_only", "concurrency", "fallback", "parse_retries", "state_chars", "labels",
		"ssr.candidates", "ssr.excerpt_chars", "similarity.candidates", "similarity.keep", "similarity.excerpt_chars"}
	stageKeys = []string{"base_url", "model", "temperature", "timeout", "max_tokens", "max_tokens_field", "reasoning_effort", "api_version", "auth", "candidates", "excerpt_chars", "size", "reserve"}
)

// knownPrefixes mark settings that belong to this package; keys without
// one of them (and not global) are left to other methods.
var knownPrefixes = []string{"propose.", "expand.", "finalize.", "fast.", "ssr.", "similarity."}

// env reads the environment; tests replace it.
var env = os.Getenv

// lookup resolves one value: the most specific name wins, and at equal
// specificity a setting beats the environment.
type lookup struct {
	settings map[string]string
	used     map[string]bool
}

func (l *lookup) get(pairs ...[2]string) (val, from string) {
	for _, p := range pairs {
		if p[0] != "" {
			if v, ok := l.settings[p[0]]; ok {
				l.used[p[0]] = true
				return v, "setting " + p[0]
			}
		}
		if p[1] != "" {
			if v := env(p[1]); v != "" {
				return v, "environment variable " + p[1]
			}
		}
	}
	return "", ""
}

// ParseConfig reads a Config from settings and the environment. API keys
// are taken from the environment only; a key in settings is an error that
// does not repeat its value.
func ParseConfig(opts mss.MethodOptions) (*Config, error) {
	c := &Config{
		ProposeCandidates: DefaultProposeCands, ProposeExcerpt: DefaultProposeExcerpt, ProposeSize: DefaultProposeSize,
		ExpandCandidates: DefaultExpandCands, ExpandExcerpt: DefaultExpandExcerpt, ExpandSize: DefaultExpandSize,
		FinalizeReserve: DefaultFinalizeReserve, FinalizeExcerpt: DefaultFinalizeExcerpt,
		SSRCandidates: DefaultSSRCands, SSRExcerpt: DefaultSSRExcerpt,
		SimilarityCandidate: DefaultSimilarityCands, SimilarityKeep: DefaultSimilarityKeep, SimilarityExcerpt: DefaultSimilarityExcerp,
		StateChars: DefaultStateChars, ParseRetries: DefaultParseRetries, Mode: llm.ModeJSONSchema,
		Fallback: DefaultFallback, Concurrency: DefaultConcurrency, Grow: true,
		FallbackOpt: map[string]string{},
	}
	l := &lookup{settings: opts.Settings, used: map[string]bool{}}
	for k := range opts.Settings {
		if k == "api_key" || strings.HasSuffix(k, ".api_key") {
			return nil, fmt.Errorf("setting %s: API keys are read from the environment only (MSS_LLM_API_KEY or MSS_<STAGE>_API_KEY)", k)
		}
		if rest, ok := strings.CutPrefix(k, "fallback."); ok {
			c.FallbackOpt[rest] = opts.Settings[k]
			l.used[k] = true
		}
	}

	var errs []string
	fail := func(from, format string, args ...any) {
		errs = append(errs, from+": "+fmt.Sprintf(format, args...))
	}
	atoi := func(dst *int, min int, pairs ...[2]string) {
		if v, from := l.get(pairs...); from != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < min {
				fail(from, "%q is not an integer >= %d", v, min)
				return
			}
			*dst = n
		}
	}
	dur := func(dst *time.Duration, pairs ...[2]string) {
		if v, from := l.get(pairs...); from != "" {
			d, err := llm.ParseDuration(v)
			if err != nil {
				fail(from, "%v", err)
				return
			}
			*dst = d
		}
	}

	for _, st := range stageNames {
		sc := c.Stage(st)
		up := strings.ToUpper(st)
		fast := st != StagePropose
		chain := func(key, envName string, globalEnv string) [][2]string {
			p := [][2]string{{st + "." + key, "MSS_" + up + "_" + envName}}
			if fast {
				p = append(p, [2]string{"fast." + key, "MSS_FAST_" + envName})
			}
			return append(p, [2]string{key, globalEnv})
		}
		if v, _ := l.get(chain("base_url", "BASE_URL", "MSS_LLM_BASE_URL")...); v != "" {
			sc.BaseURL = strings.TrimRight(v, "/")
		} else {
			sc.BaseURL = DefaultBaseURL
		}
		m, _ := l.get(chain("model", "MODEL", "MSS_LLM_MODEL")...)
		if m == "" && fast {
			// The fast stages use the proposer's model unless told otherwise.
			m = c.Propose.Model
		}
		sc.Model = m
		sc.Temperature, sc.OmitTemperature = DefaultTemperature, true
		if v, from := l.get(chain("temperature", "TEMPERATURE", "MSS_LLM_TEMPERATURE")...); from != "" && strings.TrimSpace(v) == "none" {
			sc.OmitTemperature = true
		} else if from != "" {
			sc.OmitTemperature = false
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(f >= 0 && f <= 2) { // NaN too
				fail(from, "%q is not a temperature in [0,2]", v)
			} else {
				sc.Temperature = f
			}
		}
		sc.Timeout = llm.DefaultTimeout
		dur(&sc.Timeout, chain("timeout", "TIMEOUT", "MSS_LLM_TIMEOUT")...)
		sc.MaxTokens = llm.DefaultMaxTokens
		atoi(&sc.MaxTokens, 0, chain("max_tokens", "MAX_TOKENS", "MSS_LLM_MAX_TOKENS")...)
		sc.MaxTokensField = llm.FieldMaxCompletionTokens
		if v, from := l.get(chain("max_tokens_field", "MAX_TOKENS_FIELD", "MSS_LLM_MAX_TOKENS_FIELD")...); from != "" {
			if v != llm.FieldMaxTokens && v != llm.FieldMaxCompletionTokens {
				fail(from, "%q: want max_completion_tokens or max_tokens", v)
			}
			sc.MaxTokensField = v
		}
		if v, from := l.get(chain("reasoning_effort", "REASONING_EFFORT", "MSS_LLM_REASONING_EFFORT")...); from != "" {
			sc.ReasoningEffort = strings.TrimSpace(v)
		}
		if v, from := l.get(chain("api_version", "API_VERSION", "MSS_LLM_API_VERSION")...); from != "" {
			sc.APIVersion = strings.TrimSpace(v)
		}
		if v, from := l.get(chain("auth", "AUTH", "MSS_LLM_AUTH")...); from != "" {
			v = strings.TrimSpace(v)
			if v != llm.AuthBearer && v != llm.AuthAPIKey {
				fail(from, "%q: want bearer or api-key", v)
			}
			sc.Auth = v
		}
		// Keys: environment only. A stage with its own endpoint may have its
		// own key.
		for _, name := range []string{"MSS_" + up + "_API_KEY", "MSS_FAST_API_KEY", "MSS_LLM_API_KEY"} {
			if name == "MSS_FAST_API_KEY" && !fast {
				continue
			}
			if k := env(name); k != "" {
				sc.apiKey, sc.keyVar = k, name
				break
			}
		}
	}

	atoi(&c.ProposeCandidates, 1, [2]string{"propose.candidates", ""})
	atoi(&c.ProposeExcerpt, 0, [2]string{"propose.excerpt_chars", ""})
	atoi(&c.ProposeSize, 1, [2]string{"propose.size", ""})
	atoi(&c.ExpandCandidates, 0, [2]string{"expand.candidates", ""})
	atoi(&c.ExpandExcerpt, 0, [2]string{"expand.excerpt_chars", ""})
	atoi(&c.ExpandSize, 0, [2]string{"expand.size", ""})
	atoi(&c.FinalizeReserve, 0, [2]string{"finalize.reserve", ""})
	atoi(&c.FinalizeExcerpt, 0, [2]string{"finalize.excerpt_chars", ""})
	atoi(&c.SSRCandidates, 1, [2]string{"ssr.candidates", ""})
	atoi(&c.SSRExcerpt, 0, [2]string{"ssr.excerpt_chars", ""})
	atoi(&c.SimilarityCandidate, 3, [2]string{"similarity.candidates", ""})
	atoi(&c.SimilarityKeep, 1, [2]string{"similarity.keep", ""})
	atoi(&c.SimilarityExcerpt, 0, [2]string{"similarity.excerpt_chars", ""})
	atoi(&c.StateChars, 100, [2]string{"state_chars", ""})
	atoi(&c.ParseRetries, 0, [2]string{"parse_retries", ""})
	atoi(&c.Retries, 0, [2]string{"retries", "MSS_LLM_RETRIES"})
	atoi(&c.Concurrency, 1, [2]string{"concurrency", "MSS_LLM_CONCURRENCY"})
	if c.Retries == 0 {
		if _, from := l.get([2]string{"retries", "MSS_LLM_RETRIES"}); from == "" {
			c.Retries = llm.DefaultRetries
		} else {
			c.Retries = -1 // explicitly none
		}
	}
	c.Backoff, c.BackoffMax = llm.DefaultBackoff, llm.DefaultBackoffMax
	dur(&c.Backoff, [2]string{"backoff", "MSS_LLM_BACKOFF"})
	dur(&c.BackoffMax, [2]string{"backoff_max", "MSS_LLM_BACKOFF_MAX"})
	if v, from := l.get([2]string{"response_format", "MSS_LLM_RESPONSE_FORMAT"}); from != "" {
		m, err := llm.ParseMode(v)
		if err != nil {
			fail(from, "%v", err)
		}
		c.Mode = m
	}
	if v, from := l.get([2]string{"seed", "MSS_LLM_SEED"}); from != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			fail(from, "%q is not an integer", v)
		}
		c.Seed = &n
	}
	if v, from := l.get([2]string{"grow", ""}); from != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			fail(from, "%q is not true or false", v)
		}
		c.Grow = b
	}
	if v, from := l.get([2]string{"fallback", ""}); from != "" {
		c.Fallback = strings.TrimSpace(v)
	}
	c.CacheDir, _ = l.get([2]string{"cache_dir", "MSS_LLM_CACHE_DIR"})
	if v, from := l.get([2]string{"cache_only", "MSS_LLM_CACHE_ONLY"}); from != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			fail(from, "%q is not true or false", v)
		}
		c.CacheOnly = b
	}
	if c.CacheOnly && c.CacheDir == "" {
		errs = append(errs, "cache_only needs cache_dir (setting cache_dir or MSS_LLM_CACHE_DIR)")
	}
	c.Labels, _ = l.get([2]string{"labels", ""})

	// Unknown keys under this package's prefixes are typos; say so.
	for _, k := range sortedKeys(opts.Settings) {
		if l.used[k] || known(k) {
			continue
		}
		for _, p := range knownPrefixes {
			if strings.HasPrefix(k, p) {
				errs = append(errs, fmt.Sprintf("setting %s: unknown key (stage keys: %s)", k, strings.Join(stageKeys, ", ")))
				break
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("semantic configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

func known(k string) bool {
	for _, g := range globalKeys {
		if k == g {
			return true
		}
	}
	for _, st := range append([]string{"fast"}, stageNames...) {
		for _, s := range stageKeys {
			if k == st+"."+s {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// needModels checks that every stage has a model.
func (c *Config) needModels(stages ...string) error {
	for _, st := range stages {
		if c.Stage(st).Model == "" {
			return fmt.Errorf("no model for stage %s: set MSS_PROPOSE_MODEL (and optionally MSS_FAST_MODEL) or --set propose.model=NAME", st)
		}
	}
	return nil
}

// limiters are shared per process and concurrency value, so every
// controller of a batch run draws from one pool of call slots.
var (
	limitersMu sync.Mutex
	limiters   = map[int]*llm.Limiter{}
)

func sharedLimiter(n int) *llm.Limiter {
	limitersMu.Lock()
	defer limitersMu.Unlock()
	l, ok := limiters[n]
	if !ok {
		l = llm.NewLimiter(n)
		limiters[n] = l
	}
	return l
}

// llmConfig is the client configuration of a stage.
func (c *Config) llmConfig(sc *StageConfig) llm.Config {
	var temp *float64
	if !sc.OmitTemperature {
		t := sc.Temperature
		temp = &t
	}
	maxTok := sc.MaxTokens
	if maxTok == 0 {
		maxTok = -1 // no cap sent
	}
	return llm.Config{
		BaseURL: sc.BaseURL, APIKey: sc.apiKey, Model: sc.Model, Temperature: temp, MaxTokens: maxTok, MaxTokensField: sc.MaxTokensField,
		ReasoningEffort: sc.ReasoningEffort, Seed: c.Seed, Auth: sc.Auth, APIVersion: sc.APIVersion,
		Timeout: sc.Timeout, Retries: c.Retries, Backoff: c.Backoff, BackoffMax: c.BackoffMax, Mode: c.Mode,
		ShapeDir: c.CacheDir, ShapeReadOnly: c.CacheOnly,
	}
}

// clients builds one llm.Client per stage.
func (c *Config) clients(stages ...string) (map[string]*llm.Client, error) {
	if err := c.needModels(stages...); err != nil {
		return nil, err
	}
	var cache *llm.Cache
	if c.CacheDir != "" {
		var err error
		if cache, err = llm.OpenCache(c.CacheDir, c.CacheOnly); err != nil {
			return nil, err
		}
	}
	lim := sharedLimiter(c.Concurrency)
	out := map[string]*llm.Client{}
	// Stages with the same endpoint, model and call settings share a
	// client, and so what it learns about the endpoint's response formats.
	byConf := map[string]*llm.Client{}
	for _, st := range stages {
		sc := c.Stage(st)
		lc := c.llmConfig(sc)
		id := fmt.Sprintf("%s\x00%s\x00%g\x00%v\x00%d\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s", sc.BaseURL, sc.Model, sc.Temperature, sc.OmitTemperature, sc.MaxTokens, sc.MaxTokensField, sc.ReasoningEffort, sc.APIVersion, sc.Auth, sc.Timeout, sc.keyVar)
		if cl, ok := byConf[id]; ok {
			out[st] = cl
			continue
		}
		cl, err := llm.New(lc, cache, lim)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", st, err)
		}
		byConf[id], out[st] = cl, cl
	}
	return out, nil
}

// Summary lists each stage's endpoint, model, temperature, timeout and the
// environment variable its key comes from (never the key), then the cache.
func (c *Config) Summary() string {
	var b strings.Builder
	for _, st := range stageNames {
		sc := c.Stage(st)
		key := "no key set"
		if sc.keyVar != "" {
			key = "key from " + sc.keyVar
		}
		model := sc.Model
		if model == "" {
			model = "(none)"
		}
		temp := fmt.Sprint(sc.Temperature)
		if sc.OmitTemperature {
			temp = "none"
		}
		extra := ""
		if sc.ReasoningEffort != "" {
			extra += " reasoning_effort=" + sc.ReasoningEffort
		}
		lc := c.llmConfig(sc)
		if auth := lc.Auth; auth == llm.AuthAPIKey || (auth == "" && llm.IsAzure(sc.BaseURL)) {
			extra += " auth=api-key"
		}
		if sc.APIVersion != "" {
			extra += " api-version=" + sc.APIVersion
		}
		fmt.Fprintf(&b, "%-8s %s model=%s temperature=%s timeout=%s %s=%d%s %s\n", st, llm.RedactURL(sc.BaseURL), model, temp, sc.Timeout, sc.MaxTokensField, sc.MaxTokens, extra, key)
	}
	fmt.Fprintf(&b, "config   %s concurrency=%d retries=%d response_format=%s fallback=%s\n", c.Describe(), c.Concurrency, max(c.Retries, 0), c.Mode, c.Fallback)
	if c.CacheDir != "" {
		fmt.Fprintf(&b, "cache    %s cache_only=%v\n", c.CacheDir, c.CacheOnly)
	}
	return b.String()
}
