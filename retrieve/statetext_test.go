package retrieve

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/missingcomplement/mss"
)

func TestReadable(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{{
		name: "template comments",
		text: "xr.where drops attributes\n<!-- Please include a self-contained\ncopy-pastable example -->\n**What happened**: the attrs are gone <!-- short -->here",
		want: "xr.where drops attributes\n\n**What happened**: the attrs are gone here",
	}, {
		name: "show_versions, a wrapped value inside",
		text: "Versions\n\nINSTALLED VERSIONS\n------------------\ncommit: None\npython: 3.7.8 | packaged by conda-forge | (default, Jul 31 2020)\n[GCC 7.5.0]\npython-bits: 64\nOS: Linux\nOS-release: 4.14.11-041411-generic\nmachine: x86_64\nprocessor: x86_64\nbyteorder: little\nLC_ALL: None\nLANG: en_US.UTF-8\nlibhdf5: 1.10.6\nlibnetcdf: 4.7.4\n\nxarray: 0.16.0\npandas: 1.1.2\nnumpy: 1.19.1\nh5py: None\nzarr: 2.4.0\n</details>",
		want: "Versions\n\n",
	}, {
		name: "a block that tells little above one that tells much, a blank line apart",
		text: "#### Output of ``xr.show_versions()``\n<details>\nINSTALLED VERSIONS\n------------------\ncommit: 69c7e01e5167a3137c285cb50d1978252bb8bcbf\npython: 3.6.8 |Anaconda, Inc.| (default, Dec 30 2018)\n[GCC 7.3.0]\nOS: Linux\nmachine: x86_64\nbyteorder: little\nLANG: en_CA.UTF-8\n\nxarray: 0.12.3\npandas: 0.23.4\nnumpy: 1.16.1\nscipy: 1.1.0\nzarr: None\n\nquantile drops attrs\nkeep: yes\nattrs: kept",
		want: "\nquantile drops attrs\nkeep: yes\nattrs: kept",
	}, {
		name: "images and tags",
		text: "See ![image](https://user-images.example.com/1.png) and [<img alt=\"badge\" src=\"https://img.shields.io/b.svg\">](https://x.io)\n<details><summary>Output of <tt>run()</tt></summary>\n#include <a.h>\nstd::pair<a, b> p; List<Code> c;\n<div v-if=\"shown\">x</div>\n</details>",
		want: "See  and [](https://x.io)\nOutput of run()\n#include <a.h>\nstd::pair<a, b> p; List<Code> c;\n<div v-if=\"shown\">x</div>\n",
	}, {
		name: "pip list in columns, header and rule",
		text: "```\n$ pip list\nPackage        Version\n-------------- -------\natomicwrites   1.3.0\nattrs          19.1.0\npluggy         0.9.0\npy             1.8.0\npytest         4.4.0\n```",
		want: "```",
	}, {
		name: "pip freeze",
		text: "attrs==19.3.0\npluggy==0.13.1\npy==1.8.1\npytest==5.3.2\nsix==1.13.0\nThe run fails.",
		want: "The run fails.",
	}, {
		name: "names and versions",
		text: "### Versions\nmacOS-10.16-x86_64-i386-64bit\nPython 3.9.7 (default, Sep 16 2021)\nNumpy 1.21.2\npyerfa 2.0.0\nScipy 1.7.1\nMatplotlib 3.4.3\n\nThe fit fails.",
		want: "### Versions\nmacOS-10.16-x86_64-i386-64bit\n\nThe fit fails.",
	}, {
		name: "environment variables",
		text: "**$ env**\nBAT_PAGER=<not set>\nBAT_THEME=<not set>\nLANG=en_US.UTF-8\nPAGER=less\nSHELL=/usr/bin/zsh\n\nbat panics",
		want: "\nbat panics",
	}, {
		name: "a sentence above a listing is no heading",
		text: "#### Details\nCalling `ds.load()` fails with these versions:\n\nnumpy: 1.19.1\npandas: 1.1.2\nscipy: 1.5.2\nzarr: 2.4.0\ndask: None",
		want: "#### Details\nCalling `ds.load()` fails with these versions:\n",
	}, {
		name: "assignments are code, not a listing",
		text: "lat = 10\nlon = 20\ntime = 3\nlevel = 2.5\nda = xr.DataArray(1)",
	}, {
		name: "typed fields and numeric properties are code",
		text: "class Config:\n    width: int\n    height: int\n    depth: int\n    name: str\n    scale: float\nstyle = {\n  margin: 1.5,\n  padding: 2.5,\n  top: 0.5,\n  left: 1.5,\n  right: 2,\n}",
	}, {
		name: "four versions are too few",
		text: "numpy: 1.19.1\npandas: 1.1.2\nscipy: 1.5.2\nzarr: 2.4.0\n",
	}, {
		name: "a listing that tells little stays",
		text: "Expected: a list\nActual: a tuple\nInput: [1, 2]\nOutput: (1, 2)\nVersion: 1.2.0\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.text
			}
			if diff := cmp.Diff(want, Readable(tc.text)); diff != "" {
				t.Errorf("Readable (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListingIsNotQueried: a package named in a version listing brings no
// unit of that name, and the names in the issue's prose still do.
func TestListingIsNotQueried(t *testing.T) {
	units := []mss.Unit{
		unit("pkg/versions.py", 1, "dask_version", "def dask_version():\n    import dask\n    return dask.__version__", []string{"dask_version"}, nil),
		unit("pkg/compute.py", 1, "where", "def where(cond, x, y):\n    return apply_ufunc(cond, x, y)", []string{"where"}, []string{"apply_ufunc"}),
		unit("pkg/compute.py", 10, "apply_ufunc", "def apply_ufunc(*args, keep_attrs=False):\n    return args", []string{"apply_ufunc"}, nil),
	}
	e := NewEngine(units, nil, Options{})
	listing := "\n<details>\nxarray: 0.16.0\npandas: 1.1.2\nnumpy: 1.19.1\ndask: 2.25.0\ndistributed: 2.25.0\n</details>"
	st := &mss.State{StateID: "s", Issue: "`where` drops attributes: pass keep_attrs to apply_ufunc" + listing}
	cands, err := e.Candidates(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if c.Unit.Path == "pkg/versions.py" && c.Signals[ViewLexical] > 0 {
			t.Errorf("the listing's dask matched %s lexically: %v", c.Unit.ID, c.Signals)
		}
	}
	if len(cands) == 0 || cands[0].Unit.Path != "pkg/compute.py" {
		t.Errorf("first candidate = %v, want one of pkg/compute.py", ids(cands))
	}
	m := Extract(st)
	if m.Code["dask"] || m.Idents["dask"] > 0 {
		t.Errorf("mentions read the listing: %v", m.Idents)
	}
	want := []string{"an environment listing of 6 lines", "an image or HTML tag"}
	if diff := cmp.Diff(want, m.Unread); diff != "" {
		t.Errorf("Unread (-want +got):\n%s", diff)
	}
	if !strings.Contains(StateText(st, nil), "keep_attrs") {
		t.Errorf("StateText lost the prose: %q", StateText(st, nil))
	}
}

// FuzzReadable: any text is read without a panic; what is left is never
// longer, and is the text's lines, less
// comments and markup, with some left out, in order.
func FuzzReadable(f *testing.F) {
	f.Add("a `b`\n<!-- c -->\nnumpy: 1.2\npandas: 1.3\nscipy: None\nzarr: 2.4\ndask: 2.25.0\n")
	f.Add("#### Output\n```\n$ pip list\nattrs    19.1\npy    1.8\n```\nA=1\nB=2\nC=3\nD=4\nE=5")
	f.Fuzz(func(t *testing.T, text string) {
		out, left := readable(text, nil)
		if len(out) > len(text) {
			t.Fatalf("longer: %q -> %q", text, out)
		}
		if out != text && len(left) == 0 {
			t.Fatalf("left out nothing, yet changed: %q -> %q", text, out)
		}
		if out == "" {
			return
		}
		bare, _ := unmarked(commentRe.ReplaceAllString(text, ""), nil)
		in := strings.Split(bare, "\n")
		k := 0
		for _, l := range strings.Split(out, "\n") {
			for k < len(in) && in[k] != l {
				k++
			}
			if k == len(in) {
				t.Fatalf("line %q is not one of the text's: %q -> %q", l, text, out)
			}
			k++
		}
	})
}
