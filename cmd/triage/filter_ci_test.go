package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
)

const testreportData = "../../internal/testreport/testdata"

// TestFilterGitHubAnnotations: the annotation lines of recorded logs follow
// the summary, exactly; --junit and --markdown write their files.
func TestFilterGitHubAnnotations(t *testing.T) {
	cases := map[string][]string{
		"cargo-test.log": {
			"::error file=src/lib.rs,line=11,title=unittests src/lib.rs tests%3A%3Aexplodes [failed]::index out of bounds: the len is 0 but the index is 3",
			"::error file=src/lib.rs,line=9,title=unittests src/lib.rs tests%3A%3Awrong [failed]::assertion `left == right` failed: math is broken",
		},
		"frameworks/gtest/gtest-fail.log": {
			"::error file=math_test.cc,line=9,title=gtest Math.Fails [failed]::math_test.cc:9: Failure",
		},
		"automake-check-segv.log": {
			"::error title=automake test-version [crashed]::Segmentation fault (core dumped)",
			"::warning file=configure.ac,line=56::The macro `AC_PROG_LIBTOOL' is obsolete.",
			"::warning file=configure.ac,line=62::The macro `AC_HEADER_STDC' is obsolete.",
			"::warning file=emitter.c,line=28,col=6::value computed is not used [-Wunused-value]",
			"::warning file=run-emitter-test-suite.c,line=157,col=13::‘input’ may be used uninitialized [-Wmaybe-uninitialized]",
		},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
			var stdout, stderr bytes.Buffer
			code, err := cmdFilter([]string{"--github-annotations", "--junit", junit, "--markdown", md, filepath.Join(testreportData, name)}, nil, &stdout, &stderr)
			if err != nil || code != exitFailure {
				t.Fatalf("exit %d, %v (%s)", code, err, stderr.String())
			}
			_, after, _ := strings.Cut(stdout.String(), "\nlog (")
			_, anns, _ := strings.Cut(after, "\n")
			if got := strings.Split(strings.TrimSuffix(anns, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			f, err := os.Open(junit)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if back, err := testreport.Parse(testreport.FormatJUnit, f); err != nil || back.Totals.Failed+back.Totals.Errored == 0 {
				t.Errorf("JUnit file: %v, %+v", err, back)
			}
			if sum, err := os.ReadFile(md); err != nil || !strings.HasPrefix(string(sum), "### ") || !strings.Contains(string(sum), "| Test | Status |") {
				t.Errorf("Markdown: %v\n%s", err, sum)
			}
		})
	}
}

// TestFilterJUnitNoTests: a build log writes no JUnit file and says so; the
// annotations then come from the compiler's diagnostics.
func TestFilterJUnitNoTests(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	log := "main.c:3:5: error: 'x' undeclared (first use in this function)\nmain.c:9:1: warning: unused variable 'y' [-Wunused-variable]\n"
	var stdout, stderr bytes.Buffer
	if _, err := cmdFilter([]string{"--toolchain", "gcc", "--github-annotations", "--junit", junit}, strings.NewReader(log), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(junit); !os.IsNotExist(err) {
		t.Errorf("JUnit file written for a build log: %v", err)
	}
	if !strings.Contains(stderr.String(), "no tests parsed") {
		t.Errorf("stderr: %q", stderr.String())
	}
	for _, want := range []string{
		"\n::error file=main.c,line=3,col=5::'x' undeclared (first use in this function)\n",
		"\n::warning file=main.c,line=9,col=1::unused variable 'y' [-Wunused-variable]\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("missing %q in\n%s", want, stdout.String())
		}
	}
}
