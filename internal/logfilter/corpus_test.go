package logfilter

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixtureDir holds the shared real-world logs (see fixtures/PROVENANCE.tsv).
const fixtureDir = "../../../shared/fixtures/xcodebuild"

// corpus returns the shared xcodebuild fixtures plus this package's own
// logs from gcc, go, cargo, cmake and make.
func corpus(t testing.TB) []string {
	t.Helper()
	own, err := filepath.Glob("testdata/*.log")
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := filepath.Glob(filepath.Join(fixtureDir, "*"))
	if len(shared) == 0 {
		t.Logf("shared fixtures absent at %s: checking only testdata/", fixtureDir)
	}
	return append(shared, own...)
}

// mustKeepRE is the test's own, independent notion of a line that may never
// be dropped: deliberately broad, written as a regexp rather than the
// filter's byte checks.
var mustKeepRE = regexp.MustCompile(`(?i)(\berror\s*[:\[]|fatal error|(^|[^-\w])failed\b|\bfailure\b|^\s*FAIL\b|--- FAIL|\bpanic:|panicked|segmentation fault|^\s*\*\*\*|crashed|unexpected exit|sanitizer:|terminate called|undefined reference|undefined symbol|symbol\(s\) not found|timed out|❌|✘|\x{100884}|error domain|precondition failed|assertion failed|^\s*aborted|bus error|illegal instruction|multiple definition|cmake error|\*\*\*\s*\[|\*\*\*(failed|exception))`)

// announcementRE matches Swift Testing's "started", "passing argument" and
// "passed" lines, which may quote an error they are about to test for.
var announcementRE = regexp.MustCompile(`^(\x{25C7}|\x{1007C8}|\x{2714}|\x{10105B}) `)

// goTestLogRE matches t.Log/t.Error output: context of a "--- FAIL" line,
// kept from Standard up, whatever words the test author used.
var goTestLogRE = regexp.MustCompile(`^\s+\w+_test\.go:\d+: `)

// listHeadRE starts a failure list whose indented items are must-keep.
var listHeadRE = regexp.MustCompile(`^(Testing failed:|Failing tests:|The following build commands failed:|Undefined symbols for architecture|The following tests FAILED:|failures:$)`)

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;?]*[@-~]")

// mustKeepLines applies the oracle to a raw log.
func mustKeepLines(raw []byte) []string {
	var keep []string
	inList, items := false, 0
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSuffix(ansiRE.ReplaceAllString(l, ""), "\r")
		if strings.HasPrefix(l, `{"Time"`) {
			var ev struct{ Output string }
			if json.Unmarshal([]byte(l), &ev) != nil {
				continue
			}
			l = strings.TrimRight(ev.Output, "\n")
		}
		trimmed := strings.TrimLeft(l, " \t")
		if inList {
			switch {
			case trimmed == "" && items == 0:
				continue
			case trimmed != "" && trimmed != l:
				items++
				keep = append(keep, l)
				continue
			}
			inList = false
		}
		if listHeadRE.MatchString(l) {
			inList, items = true, 0
		}
		if mustKeepRE.MatchString(l) && !announcementRE.MatchString(l) && !goTestLogRE.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return keep
}

// filterAll runs raw through a Filter in random-sized writes.
func filterAll(t testing.TB, level Level, raw []byte, seed uint64) (string, Summary) {
	t.Helper()
	var out bytes.Buffer
	f := New(level, &out)
	r := rand.New(rand.NewPCG(seed, 1))
	for p := raw; len(p) > 0; {
		n := min(len(p), 1+r.IntN(4096))
		if _, err := f.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), f.Summary()
}

func TestMustKeepLinesSurviveEveryLevel(t *testing.T) {
	for _, path := range corpus(t) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := mustKeepLines(raw)
		for _, level := range []Level{Minimal, Standard, Verbose} {
			t.Run(filepath.Base(path)+"/"+level.String(), func(t *testing.T) {
				out, _ := filterAll(t, level, raw, uint64(len(raw)))
				got := make(map[string]bool)
				for _, l := range strings.Split(out, "\n") {
					got[l] = true
				}
				missing := 0
				for _, l := range want {
					if !got[l] {
						missing++
						if missing <= 10 {
							t.Errorf("must-keep line dropped: %q", l)
						}
					}
				}
				if missing > 10 {
					t.Errorf("... %d must-keep lines dropped in all", missing)
				}
			})
		}
	}
}

func TestStandardOutputIsSmall(t *testing.T) {
	for _, path := range corpus(t) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := filterAll(t, Standard, raw, 7)
		limit := max(len(raw)*5/100, 8<<10)
		if len(out) > limit {
			t.Errorf("%s: standard output is %d bytes of %d raw, over the %d limit", filepath.Base(path), len(out), len(raw), limit)
		}
	}
}
