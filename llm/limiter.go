package llm

import "context"

// Limiter bounds how many calls are in flight at once across every client
// that shares it, so a batch run over many states stays within an
// endpoint's concurrency. A nil *Limiter does not limit.
type Limiter struct {
	sem chan struct{}
}

// NewLimiter allows n concurrent calls; n <= 0 means no limit (nil).
func NewLimiter(n int) *Limiter {
	if n <= 0 {
		return nil
	}
	return &Limiter{sem: make(chan struct{}, n)}
}

// Acquire waits for a slot and returns its release function.
func (l *Limiter) Acquire(ctx context.Context) (func(), error) {
	if l == nil {
		return func() {}, nil
	}
	select {
	case l.sem <- struct{}{}:
		return func() { <-l.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Cap is the number of concurrent calls allowed; 0 means unlimited.
func (l *Limiter) Cap() int {
	if l == nil {
		return 0
	}
	return cap(l.sem)
}
