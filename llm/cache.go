package llm

// Cache file format, version 1.
//
// A cache is a directory. Each entry is one JSON file named by its key,
// <dir>/<key[0:2]>/<key>.json, where key is the lower-hex sha256 of
//
//	"mss-llm-cache-v1\n" + base URL + "\n" + model + "\n" + canonical request body
//
// The base URL is taken without its userinfo. The canonical body is what
// was sent (see CanonicalJSON): model, messages, response format, and
// whichever of temperature, max_completion_tokens or max_tokens, seed and
// reasoning_effort the request shape carries, with sorted keys. The API
// key is not part of the key or the entry, so a cache made with one key
// replays with another or with none. Fields of an entry:
//
//	format      1
//	key         the file's key (checked on read)
//	base_url    endpoint, userinfo masked
//	model       model
//	mode        response mode of the request
//	request     canonical request body (for audit)
//	response    the endpoint's response body, as a string, with the key and
//	            URL userinfo scrubbed (an endpoint may echo them)
//	latency_ms  wall time of the original call, retries included
//	rejected    true when the endpoint refused this request shape (HTTP
//	            400/422 naming a field); the client then changes that
//	            field, on replay too
//	error       the refusal message of a rejected entry, scrubbed
//
// Beside the entries, <dir>/shapes/ keeps the request shape each endpoint
// and model accepted (see shape.go), so a new run sends it first.
//
// Only deterministic outcomes are stored: completions and format refusals.
// Rate limits, server errors and timeouts are not. Entries are written to
// a temporary file in the same directory and renamed into place, so a
// killed run leaves no partial entry and concurrent writers of one key are
// harmless (both write the same bytes' meaning).
//
// Change log: v1 first version.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/missingcomplement/mss/internal/safefile"
)

// CacheFormat is the version written into every entry.
const CacheFormat = 1

// Entry is one cached outcome.
type Entry struct {
	Format    int             `json:"format"`
	Key       string          `json:"key"`
	BaseURL   string          `json:"base_url"`
	Model     string          `json:"model"`
	Mode      Mode            `json:"mode"`
	Request   json.RawMessage `json:"request"`
	Response  string          `json:"response,omitempty"`
	LatencyMS int64           `json:"latency_ms"`
	Rejected  bool            `json:"rejected,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Cache is an on-disk response cache. Only makes Get misses fatal to the
// caller: a cache-only client never calls out.
type Cache struct {
	Dir  string
	Only bool
}

// OpenCache returns a cache in dir, creating it unless only is set (a
// cache-only run needs an existing cache).
func OpenCache(dir string, only bool) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("cache: no directory")
	}
	if only {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("cache-only: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("cache-only: %s is not a directory", dir)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{Dir: dir, Only: only}, nil
}

// CacheKey is the content address of a request to model at baseURL.
func CacheKey(baseURL, model string, canonicalBody []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "mss-llm-cache-v%d\n%s\n%s\n", CacheFormat, baseURL, model)
	h.Write(canonicalBody)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.Dir, key[:2], key+".json")
}

// Get reads the entry for key; a missing entry is ErrCacheMiss, a damaged
// one an error naming the file.
func (c *Cache) Get(key string) (*Entry, error) {
	if len(key) != 64 {
		return nil, fmt.Errorf("cache: bad key %q", key)
	}
	p := c.path(key)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrCacheMiss
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("cache: %s: %w", p, err)
	}
	switch {
	case e.Format != CacheFormat:
		return nil, fmt.Errorf("cache: %s: format %d, want %d", p, e.Format, CacheFormat)
	case e.Key != key:
		return nil, fmt.Errorf("cache: %s: field key is %q, want %q", p, e.Key, key)
	case !e.Rejected && e.Response == "":
		return nil, fmt.Errorf("cache: %s: field response is empty", p)
	}
	return &e, nil
}

// Put writes e atomically under its key.
func (c *Cache) Put(e *Entry) error {
	if c.Only {
		return nil
	}
	e.Format = CacheFormat
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	b = append(b, '\n')
	return writeAtomic(c.path(e.Key), b)
}

// writeAtomic writes b to p through a temporary file in p's directory and
// a rename (safefile.Replace), so a reader never sees a partial file and
// nothing but a regular file is ever replaced.
func writeAtomic(p string, b []byte) error {
	if err := safefile.Replace(p, b, nil); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
