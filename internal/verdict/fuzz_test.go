package verdict_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/verdict"
)

// FuzzScanner: the indicators found do not depend on how the output is cut
// into writes, and everything the Scanner keeps is bounded valid UTF-8.
func FuzzScanner(f *testing.F) {
	for _, glob := range []string{"../../../shared/fixtures/xcodebuild/*", "../logfilter/testdata/*.log"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b[:min(len(b), 16<<10)], uint16(len(b)/3))
			}
		}
	}
	f.Add([]byte("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/x.go:9 +0x1d\nexit status 2"), uint16(7))
	f.Add([]byte("==1==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x4 in f /a.c:3\n"), uint16(20))
	f.Add([]byte("# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb)\n# An error report file with more information is saved as:\n# /tmp/hs_err_pid1.log\n"), uint16(1))
	f.Add([]byte("Segmentation fault (core dumped)\r\nAll tests passed\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := verdict.NewScanner()
		whole.Write(data)
		whole.Flush()

		checkBounded(t, whole)

		// Lines longer than the Scanner keeps of a split line may scan
		// differently when split; the invariance holds below that.
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			if len(l) > 4*verdict.MaxLineKept {
				return
			}
		}
		split := verdict.NewScanner()
		step := int(cut)%61 + 1
		for p := data; len(p) > 0; {
			n := min(step, len(p))
			split.Write(p[:n])
			p = p[n:]
		}
		split.Flush()
		if !reflect.DeepEqual(whole.Indicators(), split.Indicators()) {
			t.Fatalf("indicators depend on write sizes:\nwhole %+v\nsplit %+v", whole.Indicators(), split.Indicators())
		}
		if whole.Lines() != split.Lines() || whole.LastLine() != split.LastLine() || whole.ClaimedSuccess() != split.ClaimedSuccess() {
			t.Fatalf("line accounting depends on write sizes: %d/%d %q/%q", whole.Lines(), split.Lines(), whole.LastLine(), split.LastLine())
		}
		if !reflect.DeepEqual(whole.Frame(), split.Frame()) || !reflect.DeepEqual(whole.Evidence(), split.Evidence()) {
			t.Fatalf("frame or evidence depends on write sizes: %+v/%+v", whole.Frame(), split.Frame())
		}
		if whole.Bytes() != int64(len(data)) {
			t.Fatalf("Bytes() = %d, want %d", whole.Bytes(), len(data))
		}
	})
}

// checkBounded: every kept line is valid UTF-8 of at most MaxLineKept runes
// plus the cut marker.
func checkBounded(t *testing.T, s *verdict.Scanner) {
	t.Helper()
	kept := []string{s.LastLine(), s.ClaimedSuccess()}
	for _, in := range s.Indicators() {
		kept = append(kept, in.Line)
		if in.Count < 1 || in.LineNo < 1 || in.LineNo > s.Lines() {
			t.Fatalf("indicator %+v outside the %d lines scanned", in, s.Lines())
		}
	}
	for _, k := range kept {
		if !utf8.ValidString(k) || utf8.RuneCountInString(k) > verdict.MaxLineKept+1 {
			t.Fatalf("kept line not bounded valid UTF-8 (%d runes): %q", utf8.RuneCountInString(k), k)
		}
	}
}
