package testreport

// NameCutShort names the test that was running when a run was cut short,
// found after the fact (a rerun of the unreported tests one at a time, the
// stacks taken before a hung run was killed). It names the first unnamed
// cut-short run of suite (any suite when ""), records the test as errored
// with why, and reports whether there was one to name.
func (r *Report) NameCutShort(suite, test, why string) bool {
	for i := range r.CutShort {
		cs := &r.CutShort[i]
		if cs.Test != "" || suite != "" && cs.Suite != suite {
			continue
		}
		cs.Test = test
		r.Cases = append(r.Cases, Case{Suite: cs.Suite, Name: test, Status: Errored,
			Message: "the test binary ended before the test finished (" + cs.How + "); " + why})
		r.Totals.Total++
		r.Totals.Errored++
		for j := range r.Suites {
			if r.Suites[j].Name == cs.Suite {
				r.Suites[j].Tests++
				r.Suites[j].Errors++
			}
		}
		return true
	}
	return false
}
