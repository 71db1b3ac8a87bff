package testreport

import (
	"bytes"
	"debug/elf"
	"io"
	"slices"
	"strings"
)

// A test program of a framework that always prints its closing summary
// (Catch2, doctest, GoogleTest, Boost.Test) and exits 0 without it was cut
// short: exit(0) in a test, a library calling exit. Catch2 v2 prints
// nothing at all before its summary when every case passes, so its output
// alone reads as a pass; the program itself says which framework it is
// (ProgramFramework), and its output is then held to that framework's
// summary (HoldToFramework).

// programSign is how a framework's program is known from its ELF file and
// its passing output: a mangled namespace its symbols (.dynstr, .strtab)
// and type names (.rodata) hold, the words of its closing line, and the
// options after which that line is not on its output (a reporter to a
// file, a listing, help).
type programSign struct {
	name     string   // as the answer names it ("Catch2's summary")
	format   string   // the reader of its output
	marks    []string // any of them: "N5Catch" matches _ZN5Catch… symbols and N5Catch… type names
	closings []string // words its passing run's last line holds
	quiet    []string // argument prefixes that move or silence the summary
}

var programSigns = []programSign{
	{name: "Catch2", format: FormatCatch2, marks: []string{"N5Catch"},
		closings: []string{"All tests passed", "test cases:", "No tests ran"},
		quiet:    []string{"-o", "--out", "-r", "--reporter", "-l", "--list", "-h", "-?", "--help", "-#", "--filenames-as-tags", "--libidentify"}},
	{name: "doctest", format: FormatDoctest, marks: []string{"N7doctest"},
		closings: []string{"[doctest] Status:"},
		quiet:    []string{"-o", "--out", "-dt-o", "-r", "--reporter", "-dt-r", "-l", "--list", "-dt-l", "-h", "-?", "--help", "-v", "--version", "-q", "--quiet", "-dt-q", "-nr", "--no-run", "-dt-nr", "-c", "--count", "-dt-c"}},
	{name: "GoogleTest", format: FormatGTest, marks: []string{"N7testing8internal"},
		closings: []string{"[  PASSED  ]", "[  FAILED  ]", "DISABLED TEST"},
		quiet:    []string{"--gtest_list_tests", "--help", "-h", "-?", "/?"}},
	{name: "Boost.Test", format: FormatBoostTest, marks: []string{"N5boost9unit_test"},
		closings: []string{"*** No errors detected", "errors detected", "failure detected", "failures detected", "has passed", "Test setup error"},
		quiet:    []string{"--report_level", "-r", "--report_sink", "-e", "--list_content", "--help", "-?", "--output_format", "-o", "--report_format"}},
	// Check (C): its runner's symbol, or the line it prints first. Its
	// summary is not held to: CK_VERBOSITY=silent drops it, from the
	// environment, which the runner's listing need not hold.
	{name: "Check", format: FormatCheck, marks: []string{"srunner_run", "Running suite(s):"}},
}

// Bounds of the scan of one program.
const (
	maxSignSection = 64 << 20 // bytes of one section read
	signChunk      = 1 << 20
)

// ProgramFramework says which framework's program the ELF file at path is
// ("Catch2", "doctest", "GoogleTest", "Boost.Test", "Check"), by the names
// its symbol tables and read-only data hold; "" when it is none of them,
// more than one, or not an ELF file. The scan reads at most three sections,
// each to a bound.
func ProgramFramework(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	found := ""
	for _, s := range programSigns {
		if !s.marksFile(f) {
			continue
		}
		if found != "" {
			return "" // two frameworks: the output alone decides
		}
		found = s.name
	}
	return found
}

// marksFile reports whether a section of f holds one of the sign's marks.
func (s programSign) marksFile(f *elf.File) bool {
	for _, name := range []string{".dynstr", ".strtab", ".rodata"} {
		sec := f.Section(name)
		for _, m := range s.marks {
			if sec != nil && sectionHolds(sec, []byte(m)) {
				return true
			}
		}
	}
	return false
}

// sectionHolds reports whether the section's first maxSignSection bytes
// hold want, read in chunks.
func sectionHolds(sec *elf.Section, want []byte) bool {
	if sec.Type == elf.SHT_NOBITS {
		return false
	}
	r := io.LimitReader(sec.Open(), maxSignSection)
	buf := make([]byte, signChunk+len(want))
	keep := 0
	for {
		n, err := io.ReadFull(r, buf[keep:])
		if bytes.Contains(buf[:keep+n], want) {
			return true
		}
		if err != nil {
			return false
		}
		keep = copy(buf, buf[keep+n-len(want)+1:keep+n])
	}
}

func signOf(framework string) (programSign, bool) {
	i := slices.IndexFunc(programSigns, func(s programSign) bool { return s.name == framework })
	if i < 0 {
		return programSign{}, false
	}
	return programSigns[i], true
}

// PrintsSummary reports whether a program of framework run with args
// (after the program) prints its summary on its output: framework is one
// of ProgramFramework's, and no argument moves or silences the summary.
func PrintsSummary(framework string, args []string) bool {
	s, ok := signOf(framework)
	if !ok || len(s.closings) == 0 {
		return false
	}
	for _, a := range args {
		for _, q := range s.quiet {
			long := strings.HasPrefix(q, "--") && strings.HasPrefix(a, q)                  // --list-tests, --out=FILE
			glued := len(q) == 2 && strings.HasPrefix(a, q) && !strings.HasPrefix(a, "--") // -ofile, -r=xml
			if a == q || long || glued || strings.HasPrefix(a, q+"=") {
				return false
			}
		}
	}
	return true
}

// HoldToFramework marks cut short the passed case name of the report
// (a runner's test whose program is framework's, printing its summary:
// PrintsSummary) when its whole output, as the runner kept it, does not
// end with that framework's closing line. It reports whether it marked it.
func (r *Report) HoldToFramework(name, framework string) bool {
	s, ok := signOf(framework)
	if !ok || len(s.closings) == 0 {
		return false
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Name != name || c.Status != Passed || !c.outputKept || s.closes(c.Closing) {
			continue
		}
		how := "exit 0 before " + s.name + "'s summary"
		if c.OutputLines == 0 {
			how += " (it printed nothing)"
		}
		c.Status, c.Message, c.overruled = Errored, "the test program ended early: "+how, true
		r.cutShort(c.Suite, c.Name, how)
		r.finish()
		return true
	}
	return false
}

func (s programSign) closes(line string) bool {
	for _, w := range s.closings {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// ProgramSuspects are the report's tests whose program is worth a look
// (ProgramFramework): a passed test whose kept output ends with no
// framework's closing line, and a test cut short whose running case is not
// named. Any other test's own output already says what its framework did.
func (r *Report) ProgramSuspects() []string {
	var out []string
	for _, c := range r.Cases {
		if c.Status == Passed && c.outputKept && !slices.ContainsFunc(programSigns, func(s programSign) bool { return s.closes(c.Closing) }) {
			out = append(out, c.Name)
		}
	}
	for _, cs := range r.CutShort {
		if cs.Test != "" && !strings.Contains(cs.How, ", while running ") && !slices.Contains(out, cs.Test) {
			out = append(out, cs.Test)
		}
	}
	return out
}

// IsCutShort reports whether the report holds test cut short with its
// running case not named yet (NameRunning).
func (r *Report) IsCutShort(test string) bool {
	return slices.ContainsFunc(r.CutShort, func(cs CutShort) bool {
		return cs.Test == test && !strings.Contains(cs.How, ", while running ")
	})
}
