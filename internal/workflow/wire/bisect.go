package wire

import "github.com/triage-dev/triage/internal/bisect"

// BisectCommit is a bisect's first bad commit.
type BisectCommit struct {
	Hash    string       `json:"hash"`
	Subject string       `json:"subject"`
	Author  string       `json:"author"`
	Date    string       `json:"date" jsonschema:"author date, RFC 3339"`
	Files   []BisectFile `json:"files,omitempty" jsonschema:"files changed, with lines added and deleted"`
	Diff    string       `json:"diff,omitempty" jsonschema:"its diff of the project's own files, bounded"`
	DiffCut bool         `json:"diff_cut,omitempty" jsonschema:"the diff was cut"`
}

// BisectFile is one file a commit changed.
type BisectFile struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// BisectRevision is one revision of a bisect's range.
type BisectRevision struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// BisectFailure is a failure a step showed: its kind and where.
type BisectFailure struct {
	Kind  string   `json:"kind" jsonschema:"tests failed, crashed, timed out, failed or build failed"`
	Sites []string `json:"sites,omitempty" jsonschema:"failing tests, the crash's function, the files with errors, a run's exit status"`
}

// BisectStep is one revision a bisect judged.
type BisectStep struct {
	Step       int            `json:"step"`
	Revision   string         `json:"revision"`
	Subject    string         `json:"subject"`
	Mark       string         `json:"mark" jsonschema:"good, bad or skip"`
	Verdict    string         `json:"verdict" jsonschema:"triage's verdict line of the step"`
	Why        string         `json:"why,omitempty" jsonschema:"why it was skipped"`
	Failure    *BisectFailure `json:"failure,omitempty"`
	OutputID   string         `json:"output_id,omitempty" jsonschema:"the step's stored output (the run's, for a run)"`
	BuildID    string         `json:"build_id,omitempty" jsonschema:"a run step's build output"`
	DurationMS int64          `json:"duration_ms"`
}

// BisectCommitOf converts a first bad commit, nil for nil.
func BisectCommitOf(c *bisect.Commit) *BisectCommit {
	if c == nil {
		return nil
	}
	out := &BisectCommit{Hash: c.Hash, Subject: c.Subject, Author: c.Author, Date: c.Date, Diff: c.Diff, DiffCut: c.DiffCut}
	for _, f := range c.Files {
		out.Files = append(out.Files, BisectFile(f))
	}
	return out
}

// BisectRevisionsOf converts revisions.
func BisectRevisionsOf(revs []bisect.Rev) []BisectRevision {
	var out []BisectRevision
	for _, r := range revs {
		out = append(out, BisectRevision(r))
	}
	return out
}

// BisectFailureOf converts a failure, nil for nil.
func BisectFailureOf(f *bisect.Failure) *BisectFailure {
	if f == nil {
		return nil
	}
	return &BisectFailure{Kind: f.Kind, Sites: f.Sites}
}

// BisectStepOf converts a step, nil for nil.
func BisectStepOf(s *bisect.StepReport) *BisectStep {
	if s == nil {
		return nil
	}
	return &BisectStep{Step: s.Step, Revision: s.Revision, Subject: s.Subject, Mark: s.Mark, Verdict: s.Verdict, Why: s.Why,
		Failure: BisectFailureOf(s.Failure), OutputID: s.OutputID, BuildID: s.BuildID, DurationMS: s.DurationMS}
}

// BisectStepsOf converts steps.
func BisectStepsOf(steps []bisect.StepReport) []BisectStep {
	out := make([]BisectStep, len(steps))
	for i := range steps {
		out[i] = *BisectStepOf(&steps[i])
	}
	return out
}
