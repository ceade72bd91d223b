package main

// Example output in the documentation is produced by TestDocs, so a change
// of behaviour shows up as a diff of the docs.
//
// A documented session is marked in a Markdown file like this:
//
//	<!-- example -->
//	    $ mss index --repo textsearch
//	    indexed 7 files, ...
//	<!-- /example -->
//
// The block between the markers is a code block (indented four spaces, or
// fenced): lines starting with "$ " are shell commands (a line ending in
// "\" continues on the next), the lines after each command are its output,
// standard output and standard error together. TestDocs builds mss, copies
// testdata/docs into a temporary directory (textsearch becomes a git
// repository with one commit at a fixed date), and runs every command of a
// file in order there with sh, mss first on PATH and no MSS_ variables
// (normalizations of the output: below).
//
// A page may also talk to servers, always on loopback, under fixed
// addresses that stand for real ones the test provides:
//
//   - 127.0.0.1:7777 and 127.0.0.1:7778 are free ports for the page's own
//     servers (mss serve, mss mcp --listen): a server started on one
//     listens on a port the system chooses, which the address stands for
//     from then on (per page).
//   - 127.0.0.1:8001 is an OpenAI-compatible endpoint that answers like a
//     current reasoning model (llm/llmtest, personality "reasoning"), and
//     127.0.0.1:8002 one that invents ids outside the offered candidates
//     (personality "invents-ids"), 127.0.0.1:8003 one that answers every
//     request 503 (personality "down"). The test starts them in this
//     process for a page that names them; they accept any key and model.
//
// Each such address is replaced by the real one in the commands, and the
// real one by it in the output. A command ending in "&" runs in the
// background until the page ends (then it gets SIGINT): the test waits for
// it to print a line containing "listening on" (at most a minute) and
// shows what it printed until then. A page whose commands call curl is
// skipped where curl is not installed.
//
// Output is normalized where it holds the time or chance: the temporary
// directory is written as /home/user; durations with a decimal point, or
// in whole milliseconds, as 0.00s (or ms, µs; "0ms"); a latency in "N ms"
// or "N.N ms" as 0 ms or 0.0 ms (keeping its width after two or more
// spaces, in a right-aligned column), and the last column of the rows as
// wide as a table header "... latency_ms" as 0, keeping its width; a JSON
// "seconds" or "..._ms" field as 0; a time stamp as the fixture commit's
// date (2026-01-05T10:00:00Z, in an HTTP Date header Mon, 05 Jan 2026
// 10:00:00 GMT); a session id the server drew (26 base-32 characters) as
// RHLOYBZY4HLLSVVDICZC2DIRIS; on a page with servers, a model
// configuration's hash (h=<12 hex digits>, which covers the endpoint's
// real address) as h=000000000000.
//
// go test ./cmd/mss -run TestDocs -update rewrites every block with the
// output the commands give now.

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/missingcomplement/mss/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the example output in docs/*.md with what the commands print now")

const (
	exampleStart = "<!-- example -->"
	exampleEnd   = "<!-- /example -->"
	docsHome     = "/home/user"
)

// docBlock is one marked session: the lines between the markers.
type docBlock struct {
	start, end int    // line indexes of the markers
	indent     string // "    " for an indented block, "" inside a fence
	fence      string // the opening fence line, "" for an indented block
	cmds       []docCmd
}

type docCmd struct {
	lines  []string // the command as written, without "$ " and indent
	output []string
}

func (c docCmd) shell() string {
	var b strings.Builder
	for _, l := range c.lines {
		if strings.HasSuffix(l, `\`) {
			b.WriteString(strings.TrimSuffix(l, `\`))
			b.WriteString(" ")
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// parseDoc finds the marked blocks of a Markdown file.
func parseDoc(name string, lines []string) ([]*docBlock, error) {
	var blocks []*docBlock
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != exampleStart {
			continue
		}
		b := &docBlock{start: i, end: -1}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == exampleEnd {
				b.end = j
				break
			}
		}
		if b.end < 0 {
			return nil, fmt.Errorf("%s:%d: %s without %s", name, i+1, exampleStart, exampleEnd)
		}
		body := lines[i+1 : b.end]
		b.indent = "    "
		if len(body) > 0 && strings.HasPrefix(body[0], "```") {
			if len(body) < 2 || !strings.HasPrefix(body[len(body)-1], "```") {
				return nil, fmt.Errorf("%s:%d: the fenced block of the example is not closed before %s", name, i+2, exampleEnd)
			}
			b.fence, b.indent = body[0], ""
			body = body[1 : len(body)-1]
		}
		cont := false // the previous line was a command line ending in "\"
		for k, l := range body {
			line := i + 2 + k
			if b.fence != "" {
				line++
			}
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, b.indent) {
				return nil, fmt.Errorf("%s:%d: example line not indented by four spaces: %q", name, line, l)
			}
			l = strings.TrimPrefix(l, b.indent)
			switch {
			case cont:
				c := &b.cmds[len(b.cmds)-1]
				c.lines = append(c.lines, l)
				cont = strings.HasSuffix(l, `\`)
			case strings.HasPrefix(l, "$ "):
				b.cmds = append(b.cmds, docCmd{lines: []string{strings.TrimPrefix(l, "$ ")}})
				cont = strings.HasSuffix(l, `\`)
			case len(b.cmds) == 0:
				if strings.TrimSpace(l) != "" {
					return nil, fmt.Errorf("%s:%d: example output before any \"$ \" command line", name, line)
				}
			default:
				c := &b.cmds[len(b.cmds)-1]
				c.output = append(c.output, l)
			}
		}
		for i := range b.cmds {
			c := &b.cmds[i]
			for len(c.output) > 0 && strings.TrimSpace(c.output[len(c.output)-1]) == "" {
				c.output = c.output[:len(c.output)-1]
			}
		}
		if len(b.cmds) == 0 {
			return nil, fmt.Errorf("%s:%d: example without a \"$ \" command line", name, i+1)
		}
		blocks = append(blocks, b)
		i = b.end
	}
	return blocks, nil
}

// render writes a block back with new outputs.
func (b *docBlock) render(outputs [][]string) []string {
	var out []string
	if b.fence != "" {
		out = append(out, b.fence)
	}
	line := func(s string) {
		if s == "" {
			out = append(out, "")
			return
		}
		out = append(out, b.indent+s)
	}
	for i, c := range b.cmds {
		if i > 0 {
			line("")
		}
		for k, l := range c.lines {
			if k == 0 {
				l = "$ " + l
			}
			line(l)
		}
		for _, l := range outputs[i] {
			line(l)
		}
	}
	if b.fence != "" {
		out = append(out, "```")
	}
	return out
}

// docsEnv is a scratch directory with the fixtures and a built mss.
type docsEnv struct {
	work, bin string
	env       []string
	addrs     [][2]string // {documented, real} loopback addresses
}

// Loopback addresses a page may name (see the top of this file).
var (
	docsPorts = []string{"127.0.0.1:7777", "127.0.0.1:7778"}
	docsLLMs  = []struct {
		addr string
		p    llmtest.Personality
	}{
		{"127.0.0.1:8001", llmtest.PersonalityReasoning},
		{"127.0.0.1:8002", llmtest.PersonalityInventsIDs},
		{"127.0.0.1:8003", llmtest.PersonalityDown},
	}
)

// newDocsEnv prepares a page's scratch directory; page is the page's text,
// to start only the servers it names.
func newDocsEnv(t *testing.T, bin, page string) *docsEnv {
	t.Helper()
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS(filepath.Join("testdata", "docs"))); err != nil {
		t.Fatal(err)
	}
	e := &docsEnv{work: work, bin: bin}
	// An empty git configuration of our own: where /dev/null is a plain
	// file that others write to, git fails to parse it.
	gitconfig := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(gitconfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, addr := range docsPorts {
		if strings.Contains(page, addr) {
			e.addrs = append(e.addrs, [2]string{addr, freeLoopback(t)})
		}
	}
	for _, l := range docsLLMs {
		if strings.Contains(page, l.addr) {
			srv := llmtest.NewPersonality(l.p)
			t.Cleanup(srv.Close)
			// The server's own path prefix goes with its address: a
			// page's http://127.0.0.1:8001/v1 is its BaseURL.
			real := strings.TrimSuffix(strings.TrimPrefix(srv.BaseURL(), "http://"), "/v1")
			e.addrs = append(e.addrs, [2]string{l.addr, real})
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MSS_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "GIT_") ||
			k == "PATH" || k == "HOME" || k == "TZ" || strings.HasPrefix(k, "LC_") || k == "LANG" {
			continue
		}
		e.env = append(e.env, kv)
	}
	e.env = append(e.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+work, "TZ=UTC", "LC_ALL=C", "COLUMNS=80",
		"GIT_CONFIG_GLOBAL="+gitconfig, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Example Author", "GIT_AUTHOR_EMAIL=author@example.com", "GIT_AUTHOR_DATE=2026-01-05T10:00:00Z",
		"GIT_COMMITTER_NAME=Example Author", "GIT_COMMITTER_EMAIL=author@example.com", "GIT_COMMITTER_DATE=2026-01-05T10:00:00Z")
	repo := filepath.Join(work, "textsearch")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "textsearch: index, query parsing and BM25 ranking"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return e
}

// freeLoopback returns a loopback address no one listens on now.
func freeLoopback(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

var (
	durationRE  = regexp.MustCompile(`\b[0-9]+\.[0-9]+(ns|µs|ms|s)\b`)
	msRE        = regexp.MustCompile(`\b[0-9]+(ns|µs|ms)\b`)
	latencyRE   = regexp.MustCompile(`( *)\b[0-9]+(\.[0-9]+)? ms\b`)
	jsonTimeRE  = regexp.MustCompile(`("(?:seconds|[a-z_]+_ms)": ?)[0-9.e+-]+`)
	stampRE     = regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z`)
	dateRE      = regexp.MustCompile(`(?m)^Date: .*GMT\r?$`)
	sessionIDRE = regexp.MustCompile(`\b[A-Z2-7]{26}\b`)
	configRE    = regexp.MustCompile(`\bh=[0-9a-f]{12}\b`)
)

// shell is what sh runs for a command: documented addresses replaced by
// real ones.
func (e *docsEnv) shell(line string) string {
	for _, a := range e.addrs {
		line = strings.ReplaceAll(line, a[0], a[1])
	}
	return line
}

// normalize makes output independent of the place, the time and chance
// (see the top of this file).
func (e *docsEnv) normalize(s string) []string {
	s = strings.ReplaceAll(s, e.work, docsHome)
	for _, a := range e.addrs {
		s = strings.ReplaceAll(s, a[1], a[0])
	}
	s = durationRE.ReplaceAllStringFunc(s, func(d string) string {
		return "0.00" + strings.TrimLeft(d, "0123456789.")
	})
	s = msRE.ReplaceAllStringFunc(s, func(d string) string {
		return "0" + strings.TrimLeft(d, "0123456789")
	})
	s = latencyRE.ReplaceAllStringFunc(s, func(d string) string {
		z := "0 ms"
		if strings.Contains(d, ".") {
			z = "0.0 ms"
		}
		if sp := len(d) - len(strings.TrimLeft(d, " ")); sp < 2 {
			return d[:sp] + z // in a sentence
		}
		return strings.Repeat(" ", max(1, len(d)-len(z))) + z // in a right-aligned column
	})
	s = jsonTimeRE.ReplaceAllString(s, "${1}0")
	s = stampRE.ReplaceAllString(s, "2026-01-05T10:00:00Z")
	s = dateRE.ReplaceAllString(s, "Date: Mon, 05 Jan 2026 10:00:00 GMT")
	s = sessionIDRE.ReplaceAllString(s, "RHLOYBZY4HLLSVVDICZC2DIRIS")
	if len(e.addrs) > 0 {
		s = configRE.ReplaceAllString(s, "h=000000000000")
	}
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	latencyWidth := 0 // the width of a table headed "... latency_ms", within it
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		switch {
		case strings.HasSuffix(l, " latency_ms"):
			latencyWidth = len(l)
		case latencyWidth > 0 && len(l) == latencyWidth && lastNumberRE.MatchString(l):
			n := lastNumberRE.FindString(l)
			l = l[:len(l)-len(n)] + strings.Repeat(" ", len(n)-1) + "0"
		default:
			latencyWidth = 0
		}
		lines[i] = l
	}
	return lines
}

// lastNumberRE is the last column of a table row, when it is a number.
var lastNumberRE = regexp.MustCompile(`[0-9]+$`)

// run runs one command line and returns its output lines, normalized. A
// line ending in "&" is started in the background (see background).
func (e *docsEnv) run(t *testing.T, line string) []string {
	t.Helper()
	if bg, ok := strings.CutSuffix(strings.TrimSpace(line), "&"); ok && !strings.HasSuffix(bg, "&") {
		return e.normalize(e.background(t, bg))
	}
	cmd := exec.Command("sh", "-c", e.shell(line))
	cmd.Dir, cmd.Env = e.work, e.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s: %v", line, err)
		}
	}
	return e.normalize(out.String())
}

// listeningRE finds the address a server's "listening on" line gives.
var listeningRE = regexp.MustCompile(`listening on https?://(127\.0\.0\.1:[0-9]+)`)

// leadingAssignRE matches the variable assignments that open a command.
var leadingAssignRE = regexp.MustCompile(`^(\s*[A-Za-z_][A-Za-z0-9_]*=[^ ]*)*\s*`)

// background starts a server command for the rest of the page and returns
// what it printed up to its "listening on" line. The command is run by sh
// with exec, so that the signal at the end of the page reaches the server
// itself. The server listens on a port of the system's choosing (a port
// the test chose free could be taken before the server binds it, as
// packages test in parallel); its "listening on" line tells which, and
// the page's address stands for it from then on.
func (e *docsEnv) background(t *testing.T, line string) string {
	t.Helper()
	line = strings.TrimSpace(line)
	n := len(leadingAssignRE.FindString(line))
	line = line[:n] + "exec " + line[n:]
	out, err := os.CreateTemp(t.TempDir(), "bg")
	if err != nil {
		t.Fatal(err)
	}
	run, bound := line, -1
	for k, a := range e.addrs {
		if bound < 0 && slices.Contains(docsPorts, a[0]) && strings.Contains(run, "--listen "+a[0]) {
			run, bound = strings.ReplaceAll(run, "--listen "+a[0], "--listen 127.0.0.1:0"), k
		}
	}
	cmd := exec.Command("sh", "-c", e.shell(run))
	cmd.Dir, cmd.Env = e.work, e.env
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		out.Close()
	})
	deadline := time.Now().Add(time.Minute)
	for {
		data, err := os.ReadFile(out.Name())
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(data, []byte("listening on")); i >= 0 {
			if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				if bound >= 0 {
					m := listeningRE.FindSubmatch(data[i : i+j])
					if m == nil {
						t.Fatalf("%s: no address in %q", line, data[i:i+j])
					}
					e.addrs[bound][1] = string(m[1])
				}
				return string(data[:i+j+1])
			}
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("%s: exited (%v) before listening:\n%s", line, err, data)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not listening after a minute:\n%s", line, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// buildMSS builds this command into dir.
func buildMSS(t *testing.T, dir string) {
	t.Helper()
	exe := filepath.Join(dir, "mss")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", exe, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mss and runs the documented commands")
	}
	for _, tool := range []string{"git", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	type doc struct {
		name   string
		lines  []string
		blocks []*docBlock
	}
	var docs []doc
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		blocks, err := parseDoc(f, lines)
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) > 0 {
			docs = append(docs, doc{f, lines, blocks})
		}
	}
	if len(docs) == 0 {
		t.Fatal("no marked examples in docs/*.md")
	}
	bin := t.TempDir()
	buildMSS(t, bin)
	for _, d := range docs {
		t.Run(filepath.Base(d.name), func(t *testing.T) {
			page := strings.Join(d.lines, "\n")
			if strings.Contains(page, "$ curl") {
				if _, err := exec.LookPath("curl"); err != nil {
					t.Skip("curl not installed")
				}
			}
			env := newDocsEnv(t, bin, page)
			var rewritten []string
			last := 0
			changed := false
			for _, b := range d.blocks {
				var outputs [][]string
				for _, c := range b.cmds {
					got := env.run(t, c.shell())
					outputs = append(outputs, got)
					if strings.Join(got, "\n") != strings.Join(c.output, "\n") {
						changed = true
						if !*update {
							t.Errorf("%s:%d: $ %s\nprints:\n%s\nthe docs show:\n%s\n(go test ./cmd/mss -run TestDocs -update rewrites the docs)",
								d.name, b.start+1, c.shell(), strings.Join(got, "\n"), strings.Join(c.output, "\n"))
						}
					}
				}
				rewritten = append(rewritten, d.lines[last:b.start+1]...)
				rewritten = append(rewritten, b.render(outputs)...)
				last = b.end
			}
			rewritten = append(rewritten, d.lines[last:]...)
			if *update && changed {
				if err := os.WriteFile(d.name, []byte(strings.Join(rewritten, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote %s", d.name)
			}
		})
	}
}

func TestParseDoc(t *testing.T) {
	doc := strings.Split(`# t

<!-- example -->
    $ mss index --repo a \
        --json
    {
      "files": 1
    }

    $ mss index check
    ok
<!-- /example -->

<!-- example -->
`+"```console"+`
$ echo hi
hi
`+"```"+`
<!-- /example -->
`, "\n")
	blocks, err := parseDoc("t.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || len(blocks[0].cmds) != 2 || len(blocks[1].cmds) != 1 {
		t.Fatalf("blocks %+v", blocks)
	}
	c := blocks[0].cmds[0]
	if c.shell() != "mss index --repo a      --json" || strings.Join(c.output, "|") != `{|  "files": 1|}` {
		t.Errorf("first command %q, output %q", c.shell(), c.output)
	}
	if got := blocks[1].cmds[0]; got.shell() != "echo hi" || strings.Join(got.output, "|") != "hi" {
		t.Errorf("fenced command %+v", got)
	}
	// Rendering with the same outputs gives the same lines back.
	for _, b := range blocks {
		var outs [][]string
		for _, c := range b.cmds {
			outs = append(outs, c.output)
		}
		if got, want := strings.Join(b.render(outs), "\n"), strings.Join(doc[b.start+1:b.end], "\n"); got != want {
			t.Errorf("render:\n%s\nwant:\n%s", got, want)
		}
	}
	for _, bad := range []string{
		"<!-- example -->\n    $ mss\n",
		"<!-- example -->\n    output first\n<!-- /example -->",
		"<!-- example -->\nnot indented\n<!-- /example -->",
		"<!-- example -->\n<!-- /example -->",
	} {
		if _, err := parseDoc("t.md", strings.Split(bad, "\n")); err == nil || !strings.Contains(err.Error(), "t.md:") {
			t.Errorf("%q: error %v, want one naming t.md and a line", bad, err)
		}
	}
}

func TestDocsNormalize(t *testing.T) {
	e := &docsEnv{work: "/tmp/TestDocs123/001", addrs: [][2]string{{"127.0.0.1:7777", "127.0.0.1:41234"}}}
	for _, tc := range []struct{ in, want string }{
		{"mss: indexed /tmp/TestDocs123/001/textsearch: 7 files in 219ms", "mss: indexed /home/user/textsearch: 7 files in 0ms"},
		{"mss: listening on http://127.0.0.1:41234 (no token)", "mss: listening on http://127.0.0.1:7777 (no token)"},
		{"wall 12.5s; p50 14.0 ms, p95 9.5 ms", "wall 0.00s; p50 0.0 ms, p95 0.0 ms"},
		{"propose   ok        11 ms        1\nexpand    ok         4 ms        1", "propose   ok         0 ms        1\nexpand    ok         0 ms        1"},
		{"stage   calls latency_ms\npropose     1         12\nexpand      1          3\ntotal 7", "stage   calls latency_ms\npropose     1          0\nexpand      1          0\ntotal 7"},
		{"stage   calls latency_ms\npropose     1         12\nestimated cost: $0.0147, 3", "stage   calls latency_ms\npropose     1          0\nestimated cost: $0.0147, 3"},
		{`{"build_ms":206,"seconds": 1.5,"built":"2026-11-30T12:07:24.829868544Z"}`, `{"build_ms":0,"seconds": 0,"built":"2026-01-05T10:00:00Z"}`},
		{"Date: Mon, 30 Nov 2026 13:43:42 GMT\r\nAllow: POST\r\n", "Date: Mon, 05 Jan 2026 10:00:00 GMT\nAllow: POST"},
		{`{"session_id":"VLD6KHV2EY2IDT3Y7N5JS2EN4F"}`, `{"session_id":"RHLOYBZY4HLLSVVDICZC2DIRIS"}`},
		{"config   h=d8942ec8c076 propose=gpt-5 timeout=2m0s", "config   h=000000000000 propose=gpt-5 timeout=2m0s"},
		{"", ""},
	} {
		if got := strings.Join(e.normalize(tc.in), "\n"); got != tc.want {
			t.Errorf("normalize(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
	if got := e.shell("curl -s 127.0.0.1:7777/v1/health"); got != "curl -s 127.0.0.1:41234/v1/health" {
		t.Errorf("shell: %q", got)
	}
}
