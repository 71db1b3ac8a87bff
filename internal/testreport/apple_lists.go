package testreport

import "strings"

// otherLine handles what is neither a case nor a Swift Testing line:
// verdicts, list headers, compiler errors, crash indicators.
func (p *appleParser) otherLine(body string) {
	switch {
	case strings.HasPrefix(body, "** ") && strings.HasSuffix(body, " **"):
		ts := p.rep.summary()
		ts.Verdict = body
		ts.addLine(body)
	case body == "Testing failed:":
		p.list = "testing"
	case body == "Failing tests:":
		p.list = "failing"
	case body == "The following build commands failed:":
		p.list = "commands"
	case isBuildError(body):
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, body)
	case strings.Contains(body, "Timed out waiting") && strings.Contains(body, "simulator"):
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, body)
	case strings.HasPrefix(body, "Restarting after unexpected exit"):
		p.restarted(body)
	case isCrashIndicator(body):
		if p.running >= 0 {
			p.crashPending = true
		} else {
			p.rep.crashSeen = true
		}
	}
}

// isBuildError matches compiler and linker errors, not XCTest assertions
// (those are "file:line: error: -[Suite test] : message").
func isBuildError(s string) bool {
	if strings.HasPrefix(s, "ld: ") {
		return strings.Contains(s, "not found") || strings.Contains(s, "error")
	}
	if strings.HasPrefix(s, "clang: error:") || strings.HasPrefix(s, "xcodebuild: error:") {
		return true
	}
	return diagErrorRE().MatchString(s) && !xcAssertRE().MatchString(s)
}

// isCrashIndicator: the runner or the app under test died.
func isCrashIndicator(s string) bool {
	for _, p := range []string{"*** Terminating app due to uncaught exception", "Precondition failed", "Fatal error:", "Assertion failed:", "Test crashed with signal", "Restarting after unexpected exit"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.HasPrefix(s, "libc++abi") && strings.Contains(s, "terminat") ||
		strings.Contains(s, ": Fatal error:") || strings.Contains(s, "Restarting after unexpected exit")
}

// restarted handles "Restarting after unexpected exit, crash, or test
// timeout in Suite.test(); summary will include totals from previous
// launches.": the named test did not survive.
func (p *appleParser) restarted(body string) {
	_, id, ok := strings.Cut(body, " in ")
	if !ok {
		p.rep.crashSeen = true
		return
	}
	id, _, _ = strings.Cut(id, ";")
	id = strings.TrimSpace(id)
	i, seen := p.index[id]
	if !seen {
		suite, name := splitXCTestID(id)
		i = len(p.rep.Cases)
		p.index[id] = i
		p.rep.Cases = append(p.rep.Cases, Case{Suite: suite, Name: name})
	}
	c := &p.rep.Cases[i]
	c.Status = Crashed
	c.Message = strings.TrimSpace(body + "\n" + c.Message)
	if p.running == i {
		p.running, p.crashPending = -1, false
	}
}

// listItem reads the indented items of the current list; it reports false
// at the line that ends the list.
func (p *appleParser) listItem(line string) bool {
	item := strings.TrimSpace(line)
	if item == "" || line[0] != ' ' && line[0] != '\t' {
		return false
	}
	switch p.list {
	case "testing":
		if strings.Contains(item, "encountered an error") {
			p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, item)
			if strings.Contains(item, "unexpected exit") || strings.Contains(item, "crashed with signal") {
				p.rep.crashSeen = true
			}
		}
	case "failing":
		if !strings.HasSuffix(item, ":") { // "Foo-UI-Tests:" names a target
			p.failingTests = append(p.failingTests, item)
		}
	case "commands":
		p.buildCommands = append(p.buildCommands, item)
	}
	return true
}

// finish reconciles the lists with the cases: a test listed under
// "Failing tests:" that no case line reported becomes a failed case.
func (p *appleParser) finish() {
	for _, id := range p.failingTests {
		suite, name := splitXCTestID(strings.TrimSpace(id))
		if i := p.findCase(suite, name); i >= 0 {
			if c := &p.rep.Cases[i]; c.Status == Passed {
				c.Status = Failed
			}
			continue
		}
		p.rep.Cases = append(p.rep.Cases, Case{Suite: suite, Name: name, Status: Failed, Message: "listed under \"Failing tests:\""})
	}
	if len(p.rep.BuildErrors) == 0 {
		for _, c := range p.buildCommands {
			p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, "build command failed: "+c)
		}
	}
	for id, a := range p.assertions {
		p.rep.Notes = append(p.rep.Notes, "assertion for a test with no result line: "+id+": "+a.Message)
	}
	if ts := p.rep.ToolSummary; ts != nil && p.stFailed {
		ts.Failed = -1 // Swift Testing counts issues, not failed tests
	}
}

// findCase matches "Failing tests:" names ("-[Suite test()]",
// "Suite.test()") to cases ("-[Mod.Suite test]").
func (p *appleParser) findCase(suite, name string) int {
	norm := func(s, n string) string {
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			s = s[i+1:]
		}
		return s + "/" + strings.TrimSuffix(n, "()")
	}
	want := norm(suite, name)
	for i, c := range p.rep.Cases {
		if norm(c.Suite, c.Name) == want {
			return i
		}
	}
	return -1
}

// stripNSLog returns the message of "2016-09-23 02:09:52.616 XCTRunner[1705:7891] message".
func stripNSLog(s string) (string, bool) {
	if len(s) < 24 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[0] < '0' || s[0] > '9' {
		return s, false
	}
	i := strings.Index(s[20:min(len(s), 160)], "] ")
	if i < 0 {
		return s, false
	}
	return strings.TrimSpace(s[20+i+2:]), true
}
