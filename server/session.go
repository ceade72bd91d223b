package server

import (
	"container/list"
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/missingcomplement/mss"
)

// SessionLimits bound what sessions may hold.
type SessionLimits struct {
	TTL         time.Duration // idle time after which a session is forgotten
	MaxSessions int           // least recently used sessions are evicted beyond this
	MaxSpans    int           // spans kept per session; the oldest go first
}

// Session defaults.
const (
	DefaultSessionTTL  = 30 * time.Minute
	DefaultMaxSessions = 256
	DefaultMaxSpans    = 1024
)

func (l *SessionLimits) setDefaults() {
	if l.TTL <= 0 {
		l.TTL = DefaultSessionTTL
	}
	if l.MaxSessions <= 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	if l.MaxSpans <= 0 {
		l.MaxSpans = DefaultMaxSpans
	}
}

// Sessions is a bounded, expiring store of what each agent session has
// seen. It is safe for concurrent use.
type Sessions struct {
	mu  sync.Mutex
	lim SessionLimits
	now func() time.Time
	lru *list.List // front: most recently used; values are *session
	m   map[string]*list.Element
	// turns holds, for each session with a call under way, the channel
	// the last call to take its turn closes when it is done (turn).
	turns map[string]chan struct{}
}

type session struct {
	id    string
	last  time.Time
	spans []seenSpan // oldest first
	set   map[mss.Span]bool
}

// seenSpan is a span and how the session came to see it.
type seenSpan struct {
	mss.Span
	delivered bool
}

// SessionInfo describes a session.
type SessionInfo struct {
	ID        string `json:"session_id"`
	Delivered int    `json:"delivered_spans"`
	Read      int    `json:"read_spans"`
	// Warnings name reported paths the index does not hold.
	Warnings []string `json:"warnings,omitempty"`
}

// NewSessions returns an empty store; zero limits take defaults.
func NewSessions(lim SessionLimits) *Sessions {
	lim.setDefaults()
	return &Sessions{lim: lim, now: time.Now, lru: list.New(), m: map[string]*list.Element{}, turns: map[string]chan struct{}{}}
}

// turn waits until the calls in session id that took their turn before
// this one are done, so that calls in one session run one at a time, in
// the order they asked; done ends this call's turn. A call that reads
// what the session has seen and records what it delivered holds its turn
// from the one to the other, so no later call is given the same units.
// Calls in different sessions do not wait for each other. When ctx ends
// first, turn returns its error, and the calls after this one still wait
// for those before it.
func (s *Sessions) turn(ctx context.Context, id string) (done func(), err error) {
	mine := make(chan struct{})
	s.mu.Lock()
	prev := s.turns[id]
	s.turns[id] = mine
	s.mu.Unlock()
	end := func() {
		s.mu.Lock()
		if s.turns[id] == mine {
			delete(s.turns, id)
		}
		s.mu.Unlock()
		close(mine)
	}
	if prev == nil {
		return end, nil
	}
	select {
	case <-prev:
		return end, nil
	case <-ctx.Done():
		go func() {
			<-prev
			end()
		}()
		return nil, ctx.Err()
	}
}

// NewSessionID returns a random session id (128 bits, base32).
func NewSessionID() string { return rand.Text() }

// CheckSessionID validates a client-chosen session id.
func CheckSessionID(id string) error {
	if len(id) == 0 || len(id) > 128 {
		return fmt.Errorf("session id must have 1 to 128 characters, got %d", len(id))
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return fmt.Errorf("session id %q: only letters, digits and -_.: are allowed", id)
		}
	}
	return nil
}

// get returns the live session id, creating it; s.mu must be held.
func (s *Sessions) get(id string) *session {
	now := s.now()
	s.expire(now)
	if e, ok := s.m[id]; ok {
		s.lru.MoveToFront(e)
		ss := e.Value.(*session)
		ss.last = now
		return ss
	}
	ss := &session{id: id, last: now, set: map[mss.Span]bool{}}
	s.m[id] = s.lru.PushFront(ss)
	for s.lru.Len() > s.lim.MaxSessions {
		s.remove(s.lru.Back())
	}
	return ss
}

// expire drops sessions idle for longer than the TTL; they sit at the back.
func (s *Sessions) expire(now time.Time) {
	for e := s.lru.Back(); e != nil; e = s.lru.Back() {
		if now.Sub(e.Value.(*session).last) <= s.lim.TTL {
			return
		}
		s.remove(e)
	}
}

func (s *Sessions) remove(e *list.Element) {
	delete(s.m, e.Value.(*session).id)
	s.lru.Remove(e)
}

// Observed returns the spans session id has seen, oldest first, touching
// (and creating) the session.
func (s *Sessions) Observed(id string) []mss.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.get(id)
	out := make([]mss.Span, len(ss.spans))
	for i, sp := range ss.spans {
		out[i] = sp.Span
	}
	return out
}

// Add records spans the session has seen: delivered by mss, or read by the
// agent. It returns the session's state after the addition.
func (s *Sessions) Add(id string, delivered bool, spans []mss.Span) SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.get(id)
	for _, sp := range spans {
		if ss.set[sp] {
			continue
		}
		ss.set[sp] = true
		ss.spans = append(ss.spans, seenSpan{sp, delivered})
	}
	if over := len(ss.spans) - s.lim.MaxSpans; over > 0 {
		for _, old := range ss.spans[:over] {
			delete(ss.set, old.Span)
		}
		ss.spans = append(ss.spans[:0:0], ss.spans[over:]...)
	}
	return ss.info()
}

func (ss *session) info() SessionInfo {
	in := SessionInfo{ID: ss.id}
	for _, sp := range ss.spans {
		if sp.delivered {
			in.Delivered++
		} else {
			in.Read++
		}
	}
	return in
}

// Len returns the number of live sessions.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.now())
	return s.lru.Len()
}

// Forget drops a session.
func (s *Sessions) Forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[id]; ok {
		s.remove(e)
	}
}
