package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Personality is a kind of real endpoint the server imitates: which
// request fields it refuses, with the error text that kind of endpoint
// sends, and how it answers.
type Personality string

// Personalities.
const (
	// PersonalityReasoning is a current OpenAI reasoning model (o-series,
	// GPT-5): max_tokens and any temperature but 1 are refused with 400
	// unsupported_parameter / unsupported_value, and usage reports
	// reasoning tokens.
	PersonalityReasoning Personality = "reasoning"
	// PersonalityNoJSONSchema is a server without structured output: any
	// response_format json_schema is refused (400), json_object is served.
	PersonalityNoJSONSchema Personality = "no-json-schema"
	// PersonalityNoResponseFormat refuses every response_format.
	PersonalityNoResponseFormat Personality = "no-response-format"
	// PersonalityAzure is Azure OpenAI: a deployment URL, the key in the
	// api-key header (a bearer header is refused), api-version required.
	PersonalityAzure Personality = "azure"
	// PersonalityRateLimited answers the first attempt of every request
	// 429 with Retry-After: 1, then serves the retry.
	PersonalityRateLimited Personality = "rate-limited"
	// PersonalityInventsIDs adds an id outside the enum to every list it
	// returns, as a model that ignores the schema does.
	PersonalityInventsIDs Personality = "invents-ids"
	// PersonalityEcho puts the credentials it received (Authorization,
	// api-key) into every reply: the first attempt of a request gets a 500
	// whose error body echoes them, the retry a reply whose message
	// content and headers do.
	PersonalityEcho Personality = "echo"
	// PersonalityDown answers every request 503.
	PersonalityDown Personality = "down"
)

// Personalities lists them, for tables of tests.
var Personalities = []Personality{PersonalityReasoning, PersonalityNoJSONSchema, PersonalityNoResponseFormat, PersonalityAzure, PersonalityRateLimited, PersonalityInventsIDs, PersonalityEcho, PersonalityDown}

// azureVersionParam is the query parameter Azure requires.
const azureVersionParam = "api-version"

// refuse answers a request the personality does not accept; it reports
// whether it did.
func (s *Server) refuse(w http.ResponseWriter, c *Call) bool {
	temp, hasTemp := c.Fields["temperature"]
	switch s.Personality {
	case PersonalityReasoning:
		if _, ok := c.Fields["max_tokens"]; ok {
			writeAPIError(w, 400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error", "max_tokens", "unsupported_parameter")
			return true
		}
		if hasTemp && temp != 1.0 {
			writeAPIError(w, 400, fmt.Sprintf("Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", temp), "invalid_request_error", "temperature", "unsupported_value")
			return true
		}
	case PersonalityNoJSONSchema:
		if c.Format == "json_schema" {
			writeAPIError(w, 400, "response_format of type 'json_schema' is not supported by this server; use 'json_object'", "invalid_request_error", "response_format", "")
			return true
		}
	case PersonalityNoResponseFormat:
		if _, ok := c.Fields["response_format"]; ok {
			writeAPIError(w, 400, "Unrecognized request argument supplied: response_format", "invalid_request_error", "", "")
			return true
		}
	case PersonalityAzure:
		switch {
		case c.Auth != "":
			writeAPIError(w, 401, "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.", "", "", "401")
			return true
		case s.Key != "" && c.APIKey != s.Key:
			writeAPIError(w, 401, "Access denied due to invalid subscription key.", "", "", "401")
			return true
		case !strings.Contains(c.Query, azureVersionParam+"="):
			writeAPIError(w, 404, "Resource not found", "", "", "404")
			return true
		case c.Path != "/openai/deployments/"+s.Deployment+"/chat/completions":
			writeAPIError(w, 404, "The API deployment for this resource does not exist.", "", "", "DeploymentNotFound")
			return true
		}
	case PersonalityRateLimited:
		if s.rateLimit(c) {
			w.Header().Set("Retry-After", "1")
			writeAPIError(w, 429, "Rate limit reached for requests. Please try again in 1s.", "requests", "", "rate_limit_exceeded")
			return true
		}
	case PersonalityEcho:
		if s.rateLimit(c) {
			w.Header().Set("X-Echo-Authorization", c.Auth)
			writeAPIError(w, 500, "internal error handling Authorization: "+c.Auth+" api-key: "+c.APIKey, "server_error", "", "500")
			return true
		}
	case PersonalityDown:
		writeAPIError(w, 503, "The server is overloaded or not ready yet.", "server_error", "", "503")
		return true
	}
	return false
}

// rateLimit reports whether this call is the first attempt of its body:
// the first time a body is seen it is refused, the retry served.
func (s *Server) rateLimit(c *Call) bool {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	k := string(c.Body)
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	return true
}

// flavour changes a scripted reply the way the personality would.
func (s *Server) flavour(c *Call, r Reply) Reply {
	switch s.Personality {
	case PersonalityReasoning:
		if r.ReasoningTokens == 0 && r.Status == 0 && r.Body == "" {
			r.ReasoningTokens = 64
			if r.CompletionTokens > 0 {
				r.CompletionTokens += 64
			}
		}
	case PersonalityInventsIDs:
		r.Content = inventIDs(r.Content)
	case PersonalityEcho:
		echo := "Authorization: " + c.Auth + " api-key: " + c.APIKey
		r.Content = echoInto(r.Content, echo)
		r.Header = map[string]string{"X-Echo-Authorization": c.Auth, "X-Echo-Api-Key": c.APIKey}
	}
	return r
}

// echoInto appends echo to every string field but "id" of the objects in
// content's lists, so the reply still follows its schema; content that is
// not a JSON object gets it appended.
func echoInto(content, echo string) string {
	var v map[string]any
	if json.Unmarshal([]byte(content), &v) != nil {
		return content + " " + echo
	}
	for _, val := range v {
		list, _ := val.([]any)
		for _, e := range list {
			if obj, ok := e.(map[string]any); ok {
				for f, x := range obj {
					if str, ok := x.(string); ok && f != "id" {
						obj[f] = str + " (" + echo + ")"
					}
				}
			}
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// inventIDs puts an id that was never offered at the head of every list
// of objects with an "id" in content.
func inventIDs(content string) string {
	var v map[string]any
	if json.Unmarshal([]byte(content), &v) != nil {
		return content
	}
	for k, val := range v {
		list, ok := val.([]any)
		if !ok || len(list) == 0 {
			continue
		}
		first, ok := list[0].(map[string]any)
		if !ok {
			continue
		}
		inv := map[string]any{}
		for f, x := range first {
			inv[f] = x
		}
		inv["id"] = "invented-" + k
		v[k] = append([]any{inv}, list...)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Answer answers mss's stages the way a model that trusts the fused order
// would: the first offered ids, from the schema's enum when the request
// has one, else from the "- id:" lines of the last candidate section of
// the prompt (json_object and plain requests carry no schema). It knows
// the reply shapes of propose, expand, finalize, ssr and relevance.
func Answer(c *Call) Reply {
	stage := c.SchemaName
	if stage == "" {
		for _, n := range []string{"propose", "expand", "finalize"} {
			if strings.Contains(c.System(), "Task: "+n) {
				stage = n
			}
		}
	}
	ids := func(path string, n int) []string {
		var got []string
		if e := c.Enums(); e != nil && len(e[path]) > 0 {
			got = e[path]
		} else {
			got = promptIDs(c.User())
		}
		if len(got) > n {
			got = got[:n]
		}
		return got
	}
	list := func(path string, n int, field, note string) []map[string]any {
		out := []map[string]any{}
		for i, id := range ids(path, n) {
			m := map[string]any{"id": id}
			if field == "score" {
				m[field] = 10 - i%10
			} else {
				m[field] = note
			}
			out = append(out, m)
		}
		return out
	}
	var v any
	switch stage {
	case "propose":
		v = map[string]any{"selected": list("selected[].id", 5, "covers", "the code path the state names"), "missing": []string{"the caller"}}
	case "expand":
		v = map[string]any{"additions": list("additions[].id", 1, "supports", "the caller")}
	case "finalize":
		v = map[string]any{"units": list("units[].id", 5, "reason", "needed for the next decision")}
	case "ssr":
		v = map[string]any{"units": list("units[].id", 5, "reason", "needed")}
	case "relevance":
		v = map[string]any{"scores": list("scores[].id", 1000, "score", "")}
	default:
		return Reply{Status: http.StatusBadRequest}
	}
	b, _ := json.Marshal(v)
	return Reply{Content: string(b)}
}

// promptIDs lists the ids of the last "## " section of a prompt that has
// "- id:" lines.
func promptIDs(user string) []string {
	var last []string
	for _, sec := range strings.Split("\n"+user, "\n## ") {
		var ids []string
		for _, line := range strings.Split(sec, "\n") {
			if id, ok := strings.CutPrefix(strings.TrimSpace(line), "- id: "); ok {
				ids = append(ids, strings.TrimSpace(id))
			}
		}
		if len(ids) > 0 {
			last = ids
		}
	}
	return last
}

// seen state of the rate-limited personality.
type seenState struct {
	seenMu sync.Mutex
	seen   map[string]bool
}
