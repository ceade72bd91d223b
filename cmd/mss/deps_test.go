package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBinaryDeps keeps what makes mss large out of its binary:
//   - text/template in use (cobra's Set*Template, or an import by a package
//     of this module): template method lookup by name makes the linker keep
//     every exported method of every reachable type, about 20 MB. Cobra
//     imports text/template but, without a custom template, never reaches it.
//   - the report plotting (gonum.org/v1/plot), which lives in mss-report.
func TestBinaryDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{if .Module}}{{.Module.Path}}{{end}}\t{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Skipf("go list: %v", err)
	}
	setTemplate := regexp.MustCompile(`\.Set(Usage|Help|Version)Template\(`)
	const self = "github.com/missingcomplement/mss"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("go list line %q", line)
		}
		path, dir, mod, imports := f[0], f[1], f[2], strings.Fields(f[3])
		if strings.HasPrefix(path, "gonum.org/v1/plot") {
			t.Errorf("mss depends on %s: plotting belongs to mss-report", path)
		}
		if mod != self {
			continue
		}
		for _, imp := range imports {
			if imp == "text/template" || imp == "html/template" {
				t.Errorf("%s imports %s: template method lookup by name disables the linker's dead-code elimination (+20 MB)", path, imp)
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if setTemplate.Match(src) {
				t.Errorf("%s sets a cobra template: that links text/template's method lookup by name (+20 MB); print with a function instead", file)
			}
		}
	}
}
