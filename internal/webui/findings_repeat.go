package webui

import "encoding/json"

// repeatTally is a repeat's tally as the test and run answers keep it
// (testreport.Flakiness): its runs and each failing test's distinct
// failures, each with the output of its first run (the one output of a
// runner's own repeat holds them all).
type repeatTally struct {
	Runs   int          `json:"runs"`
	Asked  int          `json:"asked"`
	Failed int          `json:"failed_runs"`
	Note   string       `json:"note,omitempty"`
	Tests  []repeatTest `json:"tests,omitempty"`
}

type repeatTest struct {
	Test     string         `json:"test"`
	Failed   int            `json:"failed"`
	Failures []repeatFailed `json:"failures"`
}

type repeatFailed struct {
	Kind        string `json:"kind"`
	Message     string `json:"message,omitempty"`
	Site        string `json:"site,omitempty"`
	Count       int    `json:"count"`
	FirstRun    int    `json:"first_run"`
	FirstOutput string `json:"first_output"`
}

// bisectSteps is a bisect's answer (workflow/bisect's Output): each
// revision judged with its verdict and output, and the first bad commit.
type bisectSteps struct {
	Status    string       `json:"status"`
	Revisions int          `json:"revisions"`
	FirstBad  *bisectFirst `json:"first_bad,omitempty"`
	Steps     []bisectStep `json:"steps"`
}

type bisectFirst struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

type bisectStep struct {
	Step     int    `json:"step"`
	Revision string `json:"revision"`
	Subject  string `json:"subject"`
	Mark     string `json:"mark"`
	Verdict  string `json:"verdict"`
	Why      string `json:"why,omitempty"`
	OutputID string `json:"output_id,omitempty"`
	// DurationMS is the step's wall time; the page sums them: a bisect's
	// entry is kept at its end, its own times are no process's.
	DurationMS int64 `json:"duration_ms,omitempty"`
}

// repeatAndBisect reads a kept answer's repeat tally (a test's in its
// tests, a run's in its verdict) and a bisect's steps; nil for what it
// does not hold.
func repeatAndBisect(raw json.RawMessage) (*repeatTally, *bisectSteps) {
	var a struct {
		Tests *struct {
			Repeat *repeatTally `json:"repeat"`
		} `json:"tests"`
		Verdict json.RawMessage `json:"verdict"`
		bisectSteps
	}
	if json.Unmarshal(raw, &a) != nil {
		return nil, nil
	}
	var rep *repeatTally
	if a.Tests != nil {
		rep = a.Tests.Repeat
	}
	var v struct {
		Repeat *repeatTally `json:"repeat"`
	}
	if rep == nil && json.Unmarshal(a.Verdict, &v) == nil {
		rep = v.Repeat
	}
	var bis *bisectSteps
	if a.Revisions > 0 && a.Status != "" {
		bis = &a.bisectSteps
	}
	return rep, bis
}
