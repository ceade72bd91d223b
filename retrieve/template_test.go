package retrieve

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestIsIssueTemplate(t *testing.T) {
	for p, want := range map[string]bool{
		".github/ISSUE_TEMPLATE/bug_report.md":  true,
		".github/ISSUE_TEMPLATE/bug.yml":        true,
		".github/issue_template/feature.yaml":   true,
		".github/ISSUE_TEMPLATE.md":             true,
		"ISSUE_TEMPLATE.md":                     true,
		"docs/issue_template.md":                true,
		".gitlab/issue_templates/Bug.md":        true,
		".github/ISSUE_TEMPLATE/config.json":    false,
		".github/ISSUE_TEMPLATE/sub/bug.md":     false,
		"src/issue_template.py":                 false,
		"vendor/x/.github/ISSUE_TEMPLATE.md":    false,
		".github/PULL_REQUEST_TEMPLATE.md":      false,
		"website/docs/ISSUE_TEMPLATE/report.md": false,
	} {
		if got := IsIssueTemplate(p); got != want {
			t.Errorf("IsIssueTemplate(%q) = %v, want %v", p, got, want)
		}
		if want {
			// What the index is asked for covers every template path.
			lower := strings.ToLower(p)
			if !strings.Contains(lower, "issue_template") {
				t.Errorf("%q escapes IssueTemplatePatterns", p)
			}
		}
	}
}

func TestIssueTemplateLines(t *testing.T) {
	var tmpl IssueTemplate
	tmpl.Add(".github/ISSUE_TEMPLATE/bug_report.md", []byte("---\nname: Bug report\nabout: 'Post a problem'\n---\n\n#### MCVE Code Sample\n```python\n# Your code here\n\n```\n\n#### Output of ``xr.show_versions()``\n<details>\n# Paste the output here xr.show_versions() here\n\n</details>\n- [ ] a\n"))
	tmpl.Add(".github/ISSUE_TEMPLATE/bug.yml", []byte("name: Bug\ndescription: File a bug\nbody:\n  - type: textarea\n    attributes:\n      label: \"What version of `bat` are you using?\"\n      placeholder: paste the output of `bat --version`\n  - type: textarea\n    attributes:\n      label: Steps to reproduce\n      value: |\n        1. run `bat --list-themes`\n\n        2. see the error\n  - type: input\n    attributes:\n      label: OS\n"))
	want := []string{
		"run `bat --list-themes`",
		"see the error",
		"<details>",
		"</details>",
		"MCVE Code Sample",
		"Output of ``xr.show_versions()``",
		"Paste the output here xr.show_versions() here",
		"Steps to reproduce",
		"What version of `bat` are you using?",
		"Your code here",
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, tmpl.Lines()); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	// Lines, read back, are the same template.
	if diff := cmp.Diff(want, NewIssueTemplate(tmpl.Lines()).Lines()); diff != "" {
		t.Errorf("NewIssueTemplate(Lines()) (-want +got):\n%s", diff)
	}
}

func TestReadableLeavesTemplateOut(t *testing.T) {
	tmpl := NewIssueTemplate([]string{"#### Output of ``xr.show_versions()``", "Expected behavior", "What version of `bat` are you using?"})
	text := "`Dataset.quantile` drops attrs\n\n### Expected behavior\nattrs kept\n\n**Output of ``xr.show_versions()``**\n\nxr.show_versions() is not the bug\n  What version of `bat` are you using?  \n```\n```"
	out, left := readable(text, tmpl)
	want := "`Dataset.quantile` drops attrs\n\nattrs kept\n\n\nxr.show_versions() is not the bug\n```\n```"
	if out != want {
		t.Errorf("readable = %q, want %q", out, want)
	}
	if diff := cmp.Diff([]string{"3 lines of the repository's issue template"}, left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	// Without a template, nothing goes.
	if out, left := readable(text, nil); out != text || left != nil {
		t.Errorf("readable without a template = %q, %q", out, left)
	}
	// The mentions follow the text: the template's name is no code
	// mention; a line of the issue's own that names it still is.
	st := &mss.State{Issue: "Output of ``xr.show_versions()``\n\nquantile drops attrs"}
	if m := ExtractWith(st, tmpl); m.Code["show_versions"] {
		t.Errorf("a template line's name is a mention: %v", m.Code)
	}
	if m := Extract(st); !m.Code["show_versions"] {
		t.Errorf("without the template the name is no mention: %v", m.Code)
	}
	// Within keeps what the text holds, and reads it the same.
	sub := tmpl.Within(text)
	if got := sub.Lines(); len(got) != 3 {
		t.Errorf("Within = %q, want the 3 lines the text holds", got)
	}
	if out2, _ := readable(text, sub); out2 != want {
		t.Errorf("read with Within: %q, want %q", out2, want)
	}
}
