package segment

import (
	"strings"
	"testing"
)

func TestMaskJavaBodies(t *testing.T) {
	body := "\n        String s = \"}\" + '{'; // a } in a comment\n        return s + \"\"\"\n            {\n            \"\"\";\n    "
	head := "package p;\n\n/** Docs. */\n@Deprecated\npublic class A<T> extends B implements C {\n    public <U> String f(int x, java.util.List<U> y) throws java.io.IOException, E {"
	mid := "}\n    A() {"
	tail := "}\n    abstract void g();\n    enum K { X(1) { int v() {"
	tail2 := "} }, Y(2); K(int n) {"
	rest := "}\n        int v() {"
	end := "}\n    }\n    record R(int a) {\n        R {\n        }\n    }\n}\n"
	src := head + body + mid + " super(); " + tail + " return 1; " + tail2 + " this.n = n; " + rest + " return 0; " + end
	// An enum constant's class body stays, its methods' bodies do not.
	want := head + blankText(body) + mid + blankText(" super(); ") + tail + blankText(" return 1; ") + tail2 +
		blankText(" this.n = n; ") + rest + blankText(" return 0; ") + end
	checkMaskedAs(t, maskJavaBodies, src, want)
}

// TestMaskJavaBodiesBig: a method whose unit may be cut at its statements
// is left as it is.
func TestMaskJavaBodiesBig(t *testing.T) {
	src := "class A {\n    void big() {\n" + strings.Repeat("        f();\n", 160) + "    }\n}\n"
	if got, ok := maskJavaBodies([]byte(src)); ok {
		t.Fatalf("masked:\n%s", got.text)
	}
}

// TestMaskJavaBodiesRefuses: files that do not lex are not masked.
func TestMaskJavaBodiesRefuses(t *testing.T) {
	checkRefuses(t, maskJavaBodies, []string{
		"class A {\n    void f() {\n        s = \"open;\n    }\n}\n",        // a string not closed on its line
		"class A {\n    void f() {\n        s = \"\"\"\n open;\n    }\n}\n", // a text block not closed
		"class A {\n    void f() {\n        /* open\n    }\n}\n",            // a comment not closed
		"class A {\n    void f() {\n        if (x) {\n    }\n}\n",           // a brace not closed
		"class A {\n    void f() {\n    }\n}\n}\n",                          // a brace closed twice
		"interface I {\n    void f();\n}\n",                                 // no body
	})
}

// javaMaskCases are Java sources whose segmentation must not change when
// method bodies are masked for the parse.
var javaMaskCases = []string{
	"package p;\n\nimport java.util.List;\n\n/** A. */\npublic class A {\n    private final int x;\n\n    /** New. */\n    public A(int x) {\n        this.x = x;\n    }\n\n    @Override\n    public String toString() {\n        return \"A{\" + x + \"}\";\n    }\n}\n",
	"enum Policy {\n    IDENTITY() {\n        @Override public String translate(String s) {\n            return s;\n        }\n    },\n    UPPER() {\n        @Override public String translate(String s) {\n            return s.toUpperCase();\n        }\n    };\n\n    abstract String translate(String s);\n\n    static String both(String s) {\n        return UPPER.translate(s);\n    }\n}\n",
	"record Point(int x, int y) {\n    Point {\n        if (x < 0) throw new IllegalArgumentException();\n    }\n\n    int sum() {\n        return x + y;\n    }\n}\n",
	"class B {\n    Runnable r = new Runnable() {\n        public void run() {\n            go();\n        }\n    };\n    static {\n        init();\n    }\n}\n",
	"class C {\n    void big() {\n" + strings.Repeat("        if (f()) {\n            g();\n        }\n", 80) + "    }\n}\n",
}

// FuzzMaskJavaBodies: masking keeps every byte's offset and every
// newline, blanks only bytes between braces, and masking again changes
// nothing.
func FuzzMaskJavaBodies(f *testing.F) {
	for _, s := range javaMaskCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkMasked(t, maskJavaBodies, src, " ") })
}
