package retrieve

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestLogCacheKeepsTheLastUsed: the cache holds historyKeep logs, the
// least recently used leaving first.
func TestLogCacheKeepsTheLastUsed(t *testing.T) {
	c := &logCache{m: map[string]*logEntry{}}
	reads := 0
	get := func(k int) {
		t.Helper()
		log, err := c.get(fmt.Sprint(k), func() (*historyLog, error) {
			reads++
			return &historyLog{messages: []string{fmt.Sprint(k)}}, nil
		})
		if err != nil || log.messages[0] != fmt.Sprint(k) {
			t.Fatalf("key %d: log %v, err %v", k, log, err)
		}
	}
	for k := range historyKeep {
		get(k)
	}
	get(0) // used again: key 1 is now the least recently used
	get(historyKeep)
	if len(c.m) != historyKeep {
		t.Fatalf("%d logs kept, want %d", len(c.m), historyKeep)
	}
	if _, ok := c.m["1"]; ok {
		t.Error("the least recently used log was kept")
	}
	before := reads
	get(0)
	if reads != before {
		t.Error("a kept log was read again")
	}
	get(1)
	if reads != before+1 {
		t.Error("a log let go was not read again")
	}
}

// TestLogCacheReadsOnce: readers of one snapshot wait for one read, and
// readers of another do not wait for it; a failed read is not kept, so
// the next reader tries again.
func TestLogCacheReadsOnce(t *testing.T) {
	c := &logCache{m: map[string]*logEntry{}}
	var reads atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.get("k", func() (*historyLog, error) {
				reads.Add(1)
				once.Do(func() { close(started) })
				<-release
				return &historyLog{}, nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	// Another snapshot's log is read while "k" is still being read (were
	// it not, this would never return).
	<-started
	if _, err := c.get("other", func() (*historyLog, error) { return &historyLog{}, nil }); err != nil {
		t.Fatal(err)
	}
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads, want 1", n)
	}

	boom := errors.New("git log failed")
	if _, err := c.get("bad", func() (*historyLog, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	log, err := c.get("bad", func() (*historyLog, error) { return &historyLog{}, nil })
	if err != nil || log == nil {
		t.Fatalf("after a failed read: log %v, err %v; want a new read", log, err)
	}
}
