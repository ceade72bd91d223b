package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestSessionsTTLAndLRU(t *testing.T) {
	now := time.Unix(1000, 0)
	s := NewSessions(SessionLimits{TTL: time.Minute, MaxSessions: 2, MaxSpans: 3})
	s.now = func() time.Time { return now }
	sp := func(a int) mss.Span { return mss.Span{Path: "a.py", StartLine: a, EndLine: a + 1} }

	s.Add("one", true, []mss.Span{sp(1)})
	now = now.Add(10 * time.Second)
	s.Add("two", false, []mss.Span{sp(2)})
	now = now.Add(10 * time.Second)
	s.Observed("one") // one is now the most recent
	s.Add("three", false, []mss.Span{sp(3)})
	if got := s.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2 after evicting beyond MaxSessions", got)
	}
	if got := s.Observed("two"); len(got) != 0 {
		t.Errorf("two should have been evicted as least recently used, still has %v", got)
	}
	// Past the TTL every idle session goes.
	now = now.Add(2 * time.Minute)
	if got := s.Len(); got != 0 {
		t.Errorf("Len = %d after the TTL, want 0", got)
	}
}

func TestSessionsSpanCapDropsOldest(t *testing.T) {
	s := NewSessions(SessionLimits{MaxSpans: 3})
	var spans []mss.Span
	for i := 1; i <= 5; i++ {
		spans = append(spans, mss.Span{Path: "a.py", StartLine: i, EndLine: i})
	}
	info := s.Add("x", false, spans[:2])
	info = s.Add("x", true, []mss.Span{spans[2], spans[3], spans[2]}) // duplicate ignored
	if info.Read != 1 || info.Delivered != 2 {
		t.Errorf("info = %+v, want 1 read and 2 delivered after dropping the oldest", info)
	}
	if d := cmp.Diff(spans[1:4], s.Observed("x")); d != "" {
		t.Errorf("observed (-want +got):\n%s", d)
	}
}

func TestCheckSessionID(t *testing.T) {
	for _, id := range []string{"abc", "A-1_2.3:4", NewSessionID()} {
		if err := CheckSessionID(id); err != nil {
			t.Errorf("CheckSessionID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "a b", "x/../y", string(make([]byte, 129))} {
		if err := CheckSessionID(id); err == nil {
			t.Errorf("CheckSessionID(%q) accepted", id)
		}
	}
}

func TestRepoPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"a/b.py", "a/b.py", true},
		{`a\b.py`, "a/b.py", true},
		{"./a//b.py", "a/b.py", true},
		{"../x", "", false},
		{"a/../../x", "", false},
		{"/etc/passwd", "", false},
		{`C:\x`, "", false},
		{"", "", false},
		{".", "", false},
		{"a\x00b", "", false},
	}
	for _, tc := range tests {
		got, err := RepoPath(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("RepoPath(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestCheckListen(t *testing.T) {
	tests := []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"localhost:8080", false, true},
		{"[::1]:8080", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"192.168.1.2:80", false, false},
		{"0.0.0.0:8080", true, true},
		{"nonsense", false, false},
	}
	for _, tc := range tests {
		if err := CheckListen(tc.addr, tc.remote); (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, %v) = %v, want ok=%v", tc.addr, tc.remote, err, tc.ok)
		}
	}
}

// waitingCtx is a context that tells when a call first asks for its
// Done channel: a call waiting its turn in a session does, before
// anything else it does with the context.
type waitingCtx struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func newWaitingCtx(ctx context.Context) *waitingCtx {
	return &waitingCtx{Context: ctx, waiting: make(chan struct{})}
}

func (c *waitingCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// TestSessionsTurn: a call in a session waits for the calls of the
// session before it, not for calls of other sessions; a call that gives
// up waiting keeps its place, so the one after it still waits for those
// before.
func TestSessionsTurn(t *testing.T) {
	s := NewSessions(SessionLimits{})
	ctx := context.Background()
	first, err := s.turn(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.turn(ctx, "b")
	if err != nil {
		t.Fatalf("a call in another session waits: %v", err)
	}
	other()

	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }

	cancelled, cancel := context.WithCancel(ctx)
	second := newWaitingCtx(cancelled)
	secondErr := make(chan error, 1)
	go func() {
		_, err := s.turn(second, "a")
		secondErr <- err
	}()
	<-second.waiting
	third := newWaitingCtx(ctx)
	thirdDone := make(chan struct{})
	go func() {
		done, err := s.turn(third, "a")
		if err != nil {
			t.Error(err)
		}
		note("third")
		done()
		close(thirdDone)
	}()
	<-third.waiting
	cancel()
	if err := <-secondErr; err != context.Canceled {
		t.Errorf("a call whose context ended while waiting: %v, want context.Canceled", err)
	}
	note("first")
	first()
	<-thirdDone
	if d := cmp.Diff([]string{"first", "third"}, order); d != "" {
		t.Errorf("order of the calls (-want +got):\n%s", d)
	}
	if after, err := s.turn(ctx, "a"); err != nil {
		t.Errorf("a call after every other is done waits: %v", err)
	} else {
		after()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.turns) != 0 {
		t.Errorf("%d sessions still hold turns after every call is done", len(s.turns))
	}
}
