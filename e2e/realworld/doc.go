// Package realworld judges triage's verdicts on real open-source projects
// with faults injected: Go modules, C projects from Debian source packages
// and Rust crates from Debian's packaged registry, fetched by
// scripts/corpus.sh into the test cache (never into the repository). Which
// projects is a written rule's outcome (docs/VERDICTS.md, "How the corpus is
// chosen", applied by scripts/corpus-pick.sh), the seed corpus aside; each
// project has a pristine cell (no fault: its tests must pass through triage
// call test and triage filter, and nothing may be called failed) and the
// faults its own fault sites allow (cells_test.go, picked_test.go). For a
// framework no packaged project uses (Catch2, doctest, Criterion), a tiny
// project of our own in testdata/own stands in (own_test.go).
//
// Each cell of the matrix (a project and one fault, applied as a small
// source patch to a fresh copy) is judged three ways: `triage call test`
// (and `triage call build` for compile errors), `triage filter` over the
// raw log of the same run, read back from triage's output store with
// output_get, and, for crashes with a core, dump_open with the arguments
// triage's own hint gave, then dump_report, in one `triage serve` session. The faults are data (cells_test.go);
// the expected fault line is the line of the patch marked FAULT.
//
// `go test` runs the cells marked CI (one per runner, and the pristine runs
// of the projects marked CI); TRIAGE_VERDICTS=all runs them all,
// and TRIAGE_VERDICTS_MD=FILE writes the table (`make verdicts` does both,
// into docs/VERDICTS.md); TRIAGE_VERDICTS_KEEP=DIR keeps each cell's raw
// log and answers there. A cell whose truth triage gets wrong fails the
// test unless it carries a Known reason, in which case it is reported.
//
// Coverage runs are judged apart (coverage_test.go): on one project per
// toolchain (uuid: go; cjson: CTest and gcc; zlib: make and gcc; semver:
// cargo), triage's totals, each listed file's covered and counted lines and
// one file's uncovered ranges must equal the toolchain's own report (go
// tool cover and the profile; gcov over the run's data files; llvm-cov over
// the run's test programs), and a failing test's path must hold its
// failure line.
//
// Bisect is judged on histories the tests make (bisect_test.go): a
// project per toolchain (uuid: go; cjson: CMake and CTest; semver: cargo)
// committed 24 times with a crash introduced in one commit, a build break
// in another and an unrelated failing test in a third; `triage call
// bisect` must name the crash's commit, skip the other two, and leave the
// user's checkout (HEAD, index, work tree, stashes) byte for byte as it was.
package realworld
