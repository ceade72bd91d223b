// Package llm is the one HTTP client mss has for model endpoints: chat
// completions for every model-calling method and embeddings for the
// embedding view, against OpenAI, Azure OpenAI and OpenAI-compatible
// servers (vLLM, llama.cpp server, Ollama, LM Studio, OpenRouter, ...). It
// is written on net/http and encoding/json because mss needs exact control
// of the request body (see Shape) and because the official SDK's
// reflection-based encoder keeps the linker from dropping unused methods
// program-wide: replacing it took the stripped mss binary from 71 MB to
// 35 MB. On top of a plain client it adds what a benchmark run needs:
//
//   - Bounded retries with exponential backoff on 429, 408, 409, 5xx,
//     timeouts and transport errors (Retry-After, in seconds or as a date,
//     and retry-after-ms are honoured, capped by BackoffMax).
//   - Requests every provider accepts: max_completion_tokens by default,
//     no temperature unless one is set, reasoning_effort passed through,
//     bearer or Azure api-key auth with api-version. A 400/422 that names a
//     field (max_tokens, temperature, seed, reasoning_effort,
//     response_format) changes that field and asks again; what worked is
//     remembered per endpoint and model, for the process and in the cache
//     directory (see shape.go).
//   - Structured output with fallbacks: json_schema (strict), then
//     json_object, then no response_format. Replies are parsed tolerantly
//     by [ExtractJSON]; [Validate] checks one against its schema.
//   - A content-addressed response cache on disk ([Cache]): the key is the
//     sha256 of base URL (userinfo removed), model and the canonical
//     request body, never the API key. Each entry is one file written
//     atomically, so a run can be resumed and replayed offline byte for
//     byte; a cache-only client fails on a miss with [ErrCacheMiss].
//   - Accounting: prompt, completion and reasoning tokens, attempts and
//     latency of every call; a shared [Limiter] bounds concurrent calls.
//
// Secrets: API keys are read by callers from the environment and handed to
// [Config]. One [Redactor] of every key and base URL credential the
// process holds (each client's, and every MSS_*_API_KEY and MSS_*_BASE_URL
// of the environment; their userinfo and credential query parameters,
// with their URL and base64 encodings) scrubs everything this package
// returns or writes, whichever client: errors, reply content, cache
// entries; [RedactURL] masks them wherever a URL is printed. An endpoint
// that echoes a credential back, its own client's or another's, cannot get
// it into a trace, a cache file or a log.
package llm
