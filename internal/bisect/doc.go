// Package bisect finds the first revision of a git project where triage's
// own verdict turns from good to bad.
//
// The search (search.go) is pure: a binary search over a range of
// revisions given a judge of one revision, good, bad or skip. The rest
// drives it over a git history: a worktree of its own under triage's
// scratch directory (the user's checkout, index and stashes untouched),
// each step a test, a build or a build and a run through the very calls
// the test, build and run tools make (internal/pipeline, internal/capture),
// each step's output kept in the store, and a verdict that is judged
// against the failure the bad revision shows: a revision that does not
// build, where no test ran, or that fails in another way or place is
// skipped, never blamed.
package bisect
