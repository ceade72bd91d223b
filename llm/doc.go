// Package llm is the chat-completion client every model-calling method in
// mss goes through. It wraps github.com/openai/openai-go/v3 for any
// OpenAI-compatible endpoint and adds what a benchmark run needs on top of a
// plain client:
//
//   - Bounded retries with exponential backoff on 429, 5xx, timeouts and
//     transport errors (Retry-After is honoured, capped by BackoffMax). The
//     SDK's own retries are switched off so the policy is one place and tests
//     can make it instant.
//   - Structured output with fallbacks: a request carries a JSON Schema; it is
//     sent as response_format json_schema (strict), and an endpoint that
//     rejects that (HTTP 400/422) is asked again with json_object, then with
//     plain text. The client remembers the downgrade. Replies are parsed
//     tolerantly by [ExtractJSON] (fenced or embedded JSON) because not every
//     endpoint honours the format it accepted.
//   - A content-addressed response cache on disk ([Cache]): the key is the
//     sha256 of base URL, model and the canonical request body, never the API
//     key. Each entry is one file written atomically, so a run can be resumed
//     and replayed offline byte for byte; a cache-only client fails on a miss
//     with [ErrCacheMiss] instead of calling out.
//   - Accounting: prompt and completion tokens, attempts and latency of every
//     call; a shared [Limiter] bounds concurrent calls across states.
//
// API keys are read by callers from the environment and handed to [Config];
// this package never writes them to a cache entry, an error or a log, and
// scrubs them from error text it passes on.
package llm
