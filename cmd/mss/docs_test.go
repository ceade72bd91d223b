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
// file in order there with sh, mss first on PATH and no MSS_ variables. The
// temporary directory is written as /home/user, durations with a decimal
// point as 0.00s (or ms, µs) and a JSON "seconds" field as 0.
//
// go test ./cmd/mss -run TestDocs -update rewrites every block with the
// output the commands give now.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
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
}

func newDocsEnv(t *testing.T, bin string) *docsEnv {
	t.Helper()
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS(filepath.Join("testdata", "docs"))); err != nil {
		t.Fatal(err)
	}
	e := &docsEnv{work: work, bin: bin}
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
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
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

var (
	durationRE = regexp.MustCompile(`\b[0-9]+\.[0-9]+(ns|µs|ms|s)\b`)
	secondsRE  = regexp.MustCompile(`"seconds": [0-9.e+-]+`)
)

// run runs one command line and returns its output lines, normalized.
func (e *docsEnv) run(t *testing.T, line string) []string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = e.work, e.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s: %v", line, err)
		}
	}
	s := strings.ReplaceAll(out.String(), e.work, docsHome)
	s = durationRE.ReplaceAllStringFunc(s, func(d string) string {
		return "0.00" + strings.TrimLeft(d, "0123456789.")
	})
	s = secondsRE.ReplaceAllString(s, `"seconds": 0`)
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
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
			env := newDocsEnv(t, bin)
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
