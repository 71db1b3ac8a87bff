package server

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// volatileIDs are the ids an answer brings that differ from run to run:
// each distinct one (the expression's first group) becomes $KIND1, $KIND2…
// in order of first appearance, and a later call may name it so. Pids are
// recognised by what precedes them, never as bare numbers.
var volatileIDs = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"OUT", regexp.MustCompile(`\b(o-[0-9a-f]{10})\b`)},
	{"PID", regexp.MustCompile(`(?:\bpid |\bcore\.|\bLWP |\bprocess |"pid": )(\d+)\b`)},
	{"DUMP", regexp.MustCompile(`\b(dump-[0-9a-f]{12})\b`)},
}

// normalise replaces what differs between two sessions of the same
// transcript: the directories of this session (longest first, so a
// crasher's source directory under the cache is named after its program),
// volatile ids, and what the patterns of volatile describe.
func (g *goldenSession) normalise(s string) string {
	type sub struct{ value, name string }
	var subs []sub
	for name, v := range g.vars {
		if strings.HasPrefix(v, "/") {
			subs = append(subs, sub{v, name})
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		subs = append(subs, sub{home, "$HOME"})
	}
	subs = append(subs, sub{os.TempDir(), "$TMP"})
	if wd, err := os.Getwd(); err == nil {
		subs = append(subs, sub{wd, "$CWD"})
	}
	slices.SortFunc(subs, func(a, b sub) int { return len(b.value) - len(a.value) })
	for _, r := range subs {
		s = strings.ReplaceAll(s, r.value, r.name)
	}
	for _, id := range volatileIDs {
		s = replaceGroup(id.re, s, func(v string) string {
			if p, ok := g.ids[id.kind+v]; ok {
				return p
			}
			g.count[id.kind]++
			p := fmt.Sprintf("$%s%d", id.kind, g.count[id.kind])
			g.ids[id.kind+v], g.vars[p] = p, v
			return p
		})
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	// A crasher's file name (and the process name cut from it) carries a
	// hash of its source, flags and compiler.
	return crasherName.ReplaceAllStringFunc(s, func(m string) string {
		name, _, _ := strings.Cut(m, "-")
		if _, built := g.vars["$CRASHER_"+name]; built {
			return name + "-<hash>"
		}
		return m
	})
}

var crasherName = regexp.MustCompile(`\b[a-z0-9]+-[0-9a-f]{7,16}\b`)

// replaceGroup replaces the first group of every match of re in s.
func replaceGroup(re *regexp.Regexp, s string, with func(string) string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[2]])
		b.WriteString(with(s[m[2]:m[3]]))
		last = m[3]
	}
	b.WriteString(s[last:])
	return b.String()
}

// dur is a Go duration as triage prints it (1ms, 4.08s, 1m2.5s).
const dur = `\d+(?:\.\d+)?(?:ns|µs|ms|s|m|h)(?:\d+(?:\.\d+)?(?:ns|µs|ms|s))*`

// volatile are the parts of an answer that depend on the machine or the
// moment rather than on what the transcript does: measured durations (not
// the limits a call set), times, addresses, sizes the loader decides, the
// string-function variant glibc picked for this CPU, and the doctor's
// versions and paths.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?m)(; pid \$PID\d+; )` + dur + `$`), "$1<dur>"},
	{regexp.MustCompile(`(\bexit -?\d+ )` + dur + `\b`), "$1<dur>"},
	{regexp.MustCompile(`(\b(?:INTERRUPTED after|taken in) )` + dur + `\b`), "$1<dur>"},
	{regexp.MustCompile(`(\b(?:exit -?\d+|killed by SIG\w+) after )` + dur + `\b`), "$1<dur>"},
	// Xcode's derived data directory is named after a hash of the project's
	// path, a result bundle's temporary directory at random.
	{regexp.MustCompile(`(DerivedData/[\w.-]+)-[0-9a-f]{16}\b`), "$1-<hash>"},
	{regexp.MustCompile(`\b(triage-[a-z]+)-\d{6,}\b`), "$1-<n>"},
	// The fake xcodebuild kills itself with kill(2), which any of its
	// threads may take: the core names its frame only when main's did.
	{regexp.MustCompile(` in main\.die at die_linux\.go:\d+`), ""},
	{regexp.MustCompile(`("(?:duration_ms|peak_rss_bytes|address|size|Elapsed)\\?": ?)[\d.]+`), "$1<n>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?`), "<time>"},
	{regexp.MustCompile(`\b\d\d-\d\d \d\d:\d\d:\d\d\b`), "<time>"},
	{regexp.MustCompile(`0x[0-9a-f]{5,}`), "<addr>"},
	// gdb shows a frame's pc only when it is not at the start of a line:
	// in a backtrace, and where it stopped a program it attached to.
	{regexp.MustCompile(`(?m)^(#\d+ +)?<addr> in `), "$1"},
	{regexp.MustCompile(`(Using host libthread_db library )"[^"\n]*"`), `$1"<path>"`},
	// go test's and ctest's own timings.
	{regexp.MustCompile(`(\t|\\t|\()\d+\.\d+s\b`), "$1<dur>"},
	{regexp.MustCompile(`\b\d+\.\d+ sec\b`), "<dur> sec"},
	{regexp.MustCompile(`\b(__\w+?_|multiarch/\w+-)(?:evex|avx2|avx512|sse2|sse4|ssse3|erms)\w*(\.S)?(?::\d+)?`), "$1<isa>$2"},
	{regexp.MustCompile(`(?m)^(  [\w-]+ +).*  \(([^)\n]*)\)$`), "$1<version>  (<path>)"},
	{regexp.MustCompile(`\((go[\d.]+)\) on (\w+/\w+), kernel \S+`), "(<go version>) on $2, kernel <version>"},
	{regexp.MustCompile(`\b\d+ of \d+ tools found`), "<n> of <n> tools found"},
	{regexp.MustCompile(`RLIMIT_CORE soft \S+ hard \S+`), "RLIMIT_CORE soft <n> hard <n>"},
}

// firstDifference describes the first line where got differs from want, with
// a few lines of context, or returns "" when they are equal.
func firstDifference(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(l []string, i int) string {
		if i < len(l) {
			return fmt.Sprintf("%q", l[i])
		}
		return "(end of file)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "        %s\n", w[j])
	}
	fmt.Fprintf(&b, "golden: %s\nsession: %s\n", line(w, i), line(g, i))
	return b.String()
}

// keepLiteralIDs marks the ids an argument spells out (an unknown one, to
// show the refusal) as stable: the answer keeps them as they are.
func (g *goldenSession) keepLiteralIDs(args string) {
	for _, id := range volatileIDs {
		for _, m := range id.re.FindAllStringSubmatch(args, -1) {
			g.ids[id.kind+m[1]] = m[1]
		}
	}
}
