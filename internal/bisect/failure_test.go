package bisect

import "testing"

// A step is judged against the failure sought: the same kind with a
// site in common is bad, another kind or place is skipped (any failure
// is bad when nothing is sought), a pass is good, and what cannot be
// judged is skipped with its reason.
func TestFailureMark(t *testing.T) {
	add := &Failure{Kind: KindTests, Sites: []string{"calc/TestAdd"}}
	cases := []struct {
		name   string
		sought *Failure
		o      outcome
		mark   Mark
		why    string
	}{
		{"passed", add, outcome{}, Good, ""},
		{"no tests", add, outcome{skip: "no tests ran"}, Skip, "no tests ran"},
		{"the same test", add, outcome{failure: &Failure{Kind: KindTests, Sites: []string{"calc/TestMul", "calc/TestAdd"}}}, Bad, ""},
		{"another test", add, outcome{failure: &Failure{Kind: KindTests, Sites: []string{"calc/TestMul"}}}, Skip, "another failure (tests failed: calc/TestMul)"},
		{"another kind", add, outcome{failure: &Failure{Kind: KindCrash, Sites: []string{"calc/TestAdd"}}}, Skip, "another failure (crashed: calc/TestAdd)"},
		{"any failure", nil, outcome{failure: &Failure{Kind: KindCrash}}, Bad, ""},
		{"no site to tell", &Failure{Kind: KindTimeout}, outcome{failure: &Failure{Kind: KindTimeout, Sites: []string{"x"}}}, Bad, ""},
		{"the same crash function", &Failure{Kind: KindCrash, Sites: []string{"store_value"}}, outcome{failure: &Failure{Kind: KindCrash, Sites: []string{"store_value"}}}, Bad, ""},
		{"another crash function", &Failure{Kind: KindCrash, Sites: []string{"store_value"}}, outcome{failure: &Failure{Kind: KindCrash, Sites: []string{"main"}}}, Skip, "another failure (crashed: main)"},
	}
	for _, c := range cases {
		if m, why := c.o.mark(c.sought); m != c.mark || why != c.why {
			t.Errorf("%s: %v %q, want %v %q", c.name, m, why, c.mark, c.why)
		}
	}
}
