package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
	"github.com/missingcomplement/mss/internal/gittest"
	"github.com/missingcomplement/mss/pipeline"
)

// gatedLoader holds every load after the first until the gate opens.
type gatedLoader struct {
	Loader
	mu    sync.Mutex
	loads int
	gate  chan struct{}
}

func (g *gatedLoader) Load(ctx context.Context) (Snapshot, error) {
	g.mu.Lock()
	g.loads++
	n := g.loads
	g.mu.Unlock()
	if n > 1 {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Loader.Load(ctx)
}

// TestStaleSnapshotRenumbersMovedUnits: while a re-index is still running,
// answers come from the previous snapshot, with units below an edit moved
// to their current lines and edited units left out.
func TestStaleSnapshotRenumbersMovedUnits(t *testing.T) {
	dir := writeFixture(t)
	g := &gatedLoader{Loader: &IndexLoader{Repo: dir}, gate: make(chan struct{})}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: g, ScanInterval: time.Nanosecond, FreshWait: time.Millisecond, MethodOptions: noGrow})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	defer close(g.gate)

	ask := func() *RecoverResponse {
		t.Helper()
		resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("parse_header emit_header split join header fields"), MaxUnits: 8, Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	before := map[string]int{}
	for _, u := range ask().Units {
		before[u.Symbol] = u.StartLine
	}
	if before["parse_header"] == 0 || before["emit_header"] == 0 {
		t.Fatalf("first answer lacks parse_header or emit_header: %v", before)
	}
	// Two lines above parse_header, and a changed emit_header body.
	p := filepath.Join(dir, "widgets/header.py")
	src, _ := os.ReadFile(p)
	edited := strings.Replace(string(src), "\n\ndef parse_header", "\n\n# a\n# b\ndef parse_header", 1)
	edited = strings.Replace(edited, "return SEP.join(fields)", "return SEP.join(f.strip() for f in fields)", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := ask()
	if resp.Index.Generation != 1 {
		t.Fatalf("answered from generation %d; the re-index should still be held", resp.Index.Generation)
	}
	got := map[string]int{}
	for _, u := range resp.Units {
		got[u.Symbol] = u.StartLine
	}
	if got["parse_header"] != before["parse_header"]+2 {
		t.Errorf("parse_header at %d, want %d (moved by the edit)", got["parse_header"], before["parse_header"]+2)
	}
	if _, ok := got["emit_header"]; ok {
		t.Errorf("emit_header was delivered with text that no longer matches the file")
	}
	var reasons []string
	for _, tr := range resp.Trace {
		if tr.Stage == "verify" {
			reasons = append(reasons, tr.Reason)
		}
	}
	want := []string{"dropped: file changed since indexing (re-index pending)", "moved from line " + itoa(before["parse_header"]) + " to " + itoa(before["parse_header"]+2) + " since indexing"}
	if d := cmp.Diff(want, reasons, sortStrings); d != "" {
		t.Errorf("verify trace (-want +got):\n%s", d)
	}
}

// TestBackgroundFirstIndex: with Background, New returns before the first
// index exists; status says so, and a request waits for the index.
func TestBackgroundFirstIndex(t *testing.T) {
	dir := writeFixture(t)
	g := &gatedLoader{Loader: &IndexLoader{Repo: dir}, gate: make(chan struct{}), loads: 1} // hold the first load too
	svc, err := New(context.Background(), Config{Repo: dir, Loader: g, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if st := svc.Status(); st.Status != "indexing" {
		t.Errorf("status before the first index = %q, want indexing", st.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = svc.Recover(ctx, &RecoverRequest{State: stateFor("parse_header")})
	cancel()
	if err == nil {
		t.Fatal("Recover answered before the first index was built")
	}
	close(g.gate)
	resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("parse_header")})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Units) == 0 || resp.Index.Generation != 1 {
		t.Errorf("after the first index: %d units, generation %d", len(resp.Units), resp.Index.Generation)
	}
	if st := svc.Status(); st.Status != StateReady || st.Index == nil || st.Index.Built.IsZero() || st.Build.Finished.IsZero() {
		t.Errorf("status after the first index = %+v, want ready with build times", st)
	}
}

// TestGrownUnitsServeFileBytes: with the default policy, units grow into
// their neighbours from a current snapshot, and what is delivered is the
// file's own text at the delivered lines, within the budget.
func TestGrownUnitsServeFileBytes(t *testing.T) {
	dir := writeFixture(t)
	svc, err := New(context.Background(), Config{Repo: dir, Loader: &IndexLoader{Repo: dir}, ScanInterval: time.Nanosecond, FreshWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("parse_header emit_header split join header fields"), MaxUnits: 2, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	grew := false
	for _, tr := range resp.Trace {
		if tr.Stage == "expand" {
			grew = true
		}
	}
	if !grew {
		t.Errorf("no unit grew with the default policy; trace: %v", resp.Trace)
	}
	total := 0
	for _, u := range resp.Units {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		want := strings.Join(lines[u.StartLine-1:u.EndLine], "")
		if u.Content != want {
			t.Errorf("%s:%d-%d: content differs from the file's lines", u.Path, u.StartLine, u.EndLine)
		}
		total += u.Tokens
	}
	if total > resp.Budget {
		t.Errorf("delivered %d tokens over budget %d", total, resp.Budget)
	}
}

// TestEditsRederived: after an edit, answers come at once from the
// stored engine overlaid with the edited file (a provisional snapshot),
// and the stored retrieval structures are derived in the background and
// swapped in under the same generation, answering with the same units
// here (in an order that may differ: the overlay is provisional in its
// semantic view and index edges, docs/serve.md).
func TestEditsRederived(t *testing.T) {
	dir := writeFixture(t)
	gittest.WriteTree(t, dir, map[string]string{"widgets/shades.py": gittest.Filler(60)})
	g := &gatedRederive{IndexLoader: &IndexLoader{Repo: dir}, gate: make(chan struct{})}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: g, ScanInterval: time.Nanosecond, FreshWait: 30 * time.Second, MethodOptions: noGrow,
		DeriveDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	isProvisional := func() bool {
		svc.mu.RLock()
		defer svc.mu.RUnlock()
		return provisional(svc.snap)
	}
	if isProvisional() {
		t.Fatal("the first snapshot is provisional; want the stored engine")
	}
	p := filepath.Join(dir, "widgets/header.py")
	src, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(string(src)+"\n\ndef frobnicate_header(h):\n    return h[::-1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := func() *RecoverResponse {
		t.Helper()
		resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("`frobnicate_header` reverses the header"), MaxUnits: 4})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := ask()
	// The edit is visible: the function it adds is delivered (the issue's
	// own parse_header may come first).
	if !slices.ContainsFunc(first.Units, func(u mss.Unit) bool { return u.Symbol == "frobnicate_header" }) {
		t.Fatalf("after the edit: %+v", first.Units)
	}
	if !isProvisional() {
		t.Fatal("the edit was answered by a stored engine while deriving was held")
	}
	if first.Index.Engine != "overlay" {
		t.Errorf("the edit was answered by engine %q; want the stored one overlaid with the edited file", first.Index.Engine)
	}
	close(g.gate)
	deadline := time.Now().Add(30 * time.Second)
	for isProvisional() {
		if time.Now().After(deadline) {
			t.Fatal("the stored engine was never swapped in")
		}
		time.Sleep(20 * time.Millisecond)
	}
	final := ask()
	if final.Index.Engine != "stored" {
		t.Errorf("after the derivation engine %q answers; want the stored one", final.Index.Engine)
	}
	if final.Index.Generation != first.Index.Generation {
		t.Errorf("generation %d after the swap, %d before: the content did not change", final.Index.Generation, first.Index.Generation)
	}
	byPlace := func(us []mss.Unit) []mss.Unit {
		us = slices.Clone(us)
		slices.SortFunc(us, func(a, b mss.Unit) int {
			if c := strings.Compare(a.Path, b.Path); c != 0 {
				return c
			}
			return a.StartLine - b.StartLine
		})
		return us
	}
	if d := cmp.Diff(byPlace(first.Units), byPlace(final.Units)); d != "" {
		t.Errorf("the stored engine answers with other units (-provisional +stored):\n%s", d)
	}
}

// TestDeriveAfterQuiet: edits closer together than DeriveDelay are
// answered by overlays and derive nothing yet; closing the service does
// not wait out the delay.
func TestDeriveAfterQuiet(t *testing.T) {
	dir := writeFixture(t)
	gittest.WriteTree(t, dir, map[string]string{"widgets/shades.py": gittest.Filler(60)})
	c := &countedRederive{IndexLoader: &IndexLoader{Repo: dir}}
	svc, err := New(context.Background(), Config{Repo: dir, Loader: c, ScanInterval: time.Nanosecond, FreshWait: 30 * time.Second, MethodOptions: noGrow,
		DeriveDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "widgets/header.py")
	src, _ := os.ReadFile(p)
	for k := range 3 {
		name := fmt.Sprintf("frobnicate_%d", k)
		src = append(src, fmt.Sprintf("\n\ndef %s(h):\n    return h[%d]\n", name, k)...)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		resp, err := svc.Recover(context.Background(), &RecoverRequest{State: stateFor("`" + name + "` reads the wrong field"), MaxUnits: 4})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, u := range resp.Units {
			found = found || u.Symbol == name
		}
		if !found {
			t.Fatalf("after edit %d the answer lacks %s", k, name)
		}
		svc.mu.RLock()
		overlaid := svc.snap.(*indexSnapshot).Engine().Overlaid()
		svc.mu.RUnlock()
		if !overlaid {
			t.Errorf("edit %d was not answered by an overlay", k)
		}
	}
	if n := c.calls.Load(); n != 0 {
		t.Errorf("derived %d times within the delay", n)
	}
	closed := make(chan error, 1)
	go func() { closed <- svc.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close waited out the derive delay")
	}
	if n := c.calls.Load(); n != 0 {
		t.Errorf("closing derived %d times", n)
	}
}

// countedRederive counts Rederive calls.
type countedRederive struct {
	*IndexLoader
	calls atomic.Int32
}

func (c *countedRederive) Rederive(ctx context.Context) (Snapshot, error) {
	c.calls.Add(1)
	return c.IndexLoader.Rederive(ctx)
}

// gatedRederive holds Rederive until the gate opens.
type gatedRederive struct {
	*IndexLoader
	gate chan struct{}
}

func (g *gatedRederive) Rederive(ctx context.Context) (Snapshot, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.IndexLoader.Rederive(ctx)
}

// heldLoader loads snapshots that hold the first ranking they are asked
// for until release closes, telling held when it starts.
type heldLoader struct {
	Loader
	calls   atomic.Int32
	held    chan struct{}
	release chan struct{}
}

func (h *heldLoader) Load(ctx context.Context) (Snapshot, error) {
	snap, err := h.Loader.Load(ctx)
	if err != nil {
		return nil, err
	}
	return &heldSnapshot{Snapshot: snap, h: h}, nil
}

type heldSnapshot struct {
	Snapshot
	h *heldLoader
}

func (s *heldSnapshot) Candidates(ctx context.Context, st *mss.State, lim pipeline.Limits) (*pipeline.Query, error) {
	if s.h.calls.Add(1) == 1 {
		close(s.h.held)
		<-s.h.release
	}
	return s.Snapshot.Candidates(ctx, st, lim)
}

// TestSessionCallsOneAtATime: a call in a session made while the
// session's previous call is still being answered waits for it, and so
// is given none of the units it delivered; a report of read spans made
// after it is recorded after both calls' deliveries.
func TestSessionCallsOneAtATime(t *testing.T) {
	h := &heldLoader{held: make(chan struct{}), release: make(chan struct{})}
	svc, _ := newTestService(t, func(root string) Loader {
		h.Loader = &IndexLoader{Repo: root}
		return h
	})
	ctx := context.Background()
	req := func() *RecoverRequest {
		return &RecoverRequest{State: stateFor("where header fields are split and joined"), SessionID: "one", MaxUnits: 2}
	}
	type result struct {
		resp *RecoverResponse
		err  error
	}
	firstDone := make(chan result, 1)
	go func() {
		resp, err := svc.Recover(ctx, req())
		firstDone <- result{resp, err}
	}()
	<-h.held // the first call has read what the session saw, and ranks

	second := newWaitingCtx(ctx)
	secondDone := make(chan result, 1)
	go func() {
		resp, err := svc.Recover(second, req())
		secondDone <- result{resp, err}
	}()
	var early *result
	select {
	case <-second.waiting:
	case r := <-secondDone: // answered without waiting for the first
		early = &r
	}
	mark := newWaitingCtx(ctx)
	markDone := make(chan SessionInfo, 1)
	go func() {
		info, err := svc.MarkObserved(mark, "one", []mss.Span{{Path: "README.md", StartLine: 1, EndLine: 1}})
		if err != nil {
			t.Error(err)
		}
		markDone <- info
	}()
	var markEarly *SessionInfo
	select {
	case <-mark.waiting:
	case info := <-markDone:
		markEarly = &info
	}
	close(h.release)

	first := <-firstDone
	if first.err != nil {
		t.Fatal(first.err)
	}
	var secondRes result
	if early != nil {
		secondRes = *early
	} else {
		secondRes = <-secondDone
	}
	if secondRes.err != nil {
		t.Fatal(secondRes.err)
	}
	if len(first.resp.Units) == 0 {
		t.Fatal("the first call delivered nothing")
	}
	delivered := map[string]bool{}
	for _, u := range first.resp.Units {
		delivered[fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine)] = true
	}
	for _, u := range secondRes.resp.Units {
		if span := fmt.Sprintf("%s:%d-%d", u.Path, u.StartLine, u.EndLine); delivered[span] {
			t.Errorf("the second call of the session was given %s again", span)
		}
	}
	if secondRes.resp.Observed != len(first.resp.Units) {
		t.Errorf("the second call excluded %d spans, want the %d the first delivered", secondRes.resp.Observed, len(first.resp.Units))
	}
	var info SessionInfo
	if markEarly != nil {
		info = *markEarly
	} else {
		info = <-markDone
	}
	if want := len(first.resp.Units) + len(secondRes.resp.Units); info.Delivered != want || info.Read != 1 {
		t.Errorf("spans read, reported during the first call, after the second: %+v, want them recorded after the %d spans both delivered", info, want)
	}
}
