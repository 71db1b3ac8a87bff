package pipeline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// SkipPolicy says whether skipped tests fail a run: a CI job that must run
// every test says so, and lists the skips it expects (tests that need
// another platform). The zero value lets every skip pass.
type SkipPolicy struct {
	// Fail makes a skipped test a failure unless Allowed matches it.
	Fail bool
	// Allowed match a skipped test's qualified name ("pkg/TestX" for Go,
	// "binary/test" for cargo), anywhere in it unless anchored.
	Allowed []*regexp.Regexp
}

// maxNamedSkips bounds the skipped tests a verdict line names.
const maxNamedSkips = 5

// Unexpected returns the skipped cases of rep that the policy does not
// allow, in report order.
func (p SkipPolicy) Unexpected(rep *testreport.Report) []testreport.Case {
	if !p.Fail || rep == nil {
		return nil
	}
	var out []testreport.Case
	for _, c := range rep.Cases {
		if c.Status != testreport.Skipped {
			continue
		}
		name := qualifiedName(c, rep.Format)
		allowed := false
		for _, re := range p.Allowed {
			if re.MatchString(name) {
				allowed = true
				break
			}
		}
		if !allowed {
			out = append(out, c)
		}
	}
	return out
}

// applySkips turns a passing test run with skips the policy does not allow
// into a failure that names them.
func (r *Result) applySkips(p SkipPolicy) {
	bad := p.Unexpected(r.Report)
	if len(bad) == 0 || r.Status != Succeeded {
		return
	}
	names := make([]string, 0, maxNamedSkips)
	for _, c := range bad[:min(len(bad), maxNamedSkips)] {
		n := qualifiedName(c, r.Report.Format)
		if why := firstLine(c.Message); why != "" {
			n += " (" + clip(why, 80) + ")"
		}
		names = append(names, n)
	}
	more := ""
	if len(bad) > maxNamedSkips {
		more = fmt.Sprintf(" and %d more", len(bad)-maxNamedSkips)
	}
	r.Status = Failed
	r.Line = fmt.Sprintf("TESTS FAILED: %s not allowed to skip: %s%s (%s)",
		textclip.Count(len(bad), "skipped test"), strings.Join(names, ", "), more, strings.TrimPrefix(r.Line, "TESTS PASSED: "))
}
