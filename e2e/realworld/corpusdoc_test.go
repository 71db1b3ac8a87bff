package realworld

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// corpusRule is docs/VERDICTS.md's section on how the corpus is chosen;
// markdown writes it above the matrix, and the picker's outcome under it.
const corpusRule = "## How the corpus is chosen\n\n" +
	"By a rule, which `scripts/corpus-pick.sh` applies to the source index of the system's Debian\n" +
	"release (the `Sources` file `apt-get update` puts in the corpus's own apt directory), to this\n" +
	"repository's `go.mod` and to Debian's crate packages. Given those, the outcome is the same on\n" +
	"every run, but for what the machine has installed by then (a candidate's missing Build-Depends\n" +
	"are counted on it).\n\n" +
	"- **C and C++: one project per test framework and per build system.** The groups, in this\n" +
	"  order, and the packages that name them in a Build-Depends: GoogleTest (`googletest`,\n" +
	"  `libgtest-dev`, `libgmock-dev`), Catch2 (`catch2`), doctest (`doctest-dev`), Boost.Test\n" +
	"  (`libboost-test-dev`), CUnit (`libcunit1-dev`), Check (`check`), cmocka (`libcmocka-dev`),\n" +
	"  Criterion (`libcriterion-dev`), TAP (`perl-xs-dev`: a Perl module with C code, whose `make\n" +
	"  test` runs its `t/*.t` through Test::Harness, as `prove` does), meson (`meson`), CMake with\n" +
	"  CTest (`cmake`) and autotools (`dh-autoreconf`, `autoconf`). A group's candidates are the\n" +
	"  source packages of the release's main component whose Build-Depends name one of its\n" +
	"  packages, smallest original tarball first (then by name), less the seed and those an earlier\n" +
	"  group chose. Each is fetched with `apt-get source` (the mirror here serves part of the pool:\n" +
	"  when the original tarball comes and the Debian files do not, the tarball alone, unpatched,\n" +
	"  and the outcome says so), its missing Build-Depends are installed when they are at most 10\n" +
	"  packages, and it is built and tested the way triage's toolchain does, with no network but\n" +
	"  the loopback and with the framework headers' own directories on the include path (a tarball\n" +
	"  without its Debian patches expects a bundled `doctest.h` or `catch.hpp`): `meson setup` and\n" +
	"  `meson test`; `cmake` (Debug, `BUILD_TESTING=ON`), `cmake\n" +
	"  --build` and `ctest`; `./configure` (after `autoreconf -fi` when there is none), `make` and\n" +
	"  `make check`; `perl Makefile.PL`, `make` and `make test`; with the options its `debian/rules`\n" +
	"  gives that enable tests (CMake `-D…TEST…=ON`, meson `-D…test…=true`, `--enable-…test…`).\n" +
	"  It is chosen when that passed in under two minutes and the group's own output shows in the\n" +
	"  run's log or a log file the run left: GoogleTest's `[  PASSED  ] N tests.`, Catch2's `All\n" +
	"  tests passed`, doctest's `[doctest] Status: SUCCESS`, Boost.Test's `*** No errors detected`,\n" +
	"  CUnit's `Run Summary:`, Check's `100%: Checks: N, Failures: 0, Errors: 0`, cmocka's\n" +
	"  `[  PASSED  ] N test(s).`, Criterion's `Synthesis:`, Test::Harness's `All tests\n" +
	"  successful.`, meson's `Ok: N`, CTest's `tests passed, 0 tests failed out of N`, automake's\n" +
	"  `# PASS: N`. A group takes its first chosen package, and gives up after 6 candidates built\n" +
	"  or 40 fetched.\n" +
	"- **Go:** the modules this repository's `go.mod` requires, directly or indirectly, with a\n" +
	"  `_test.go` file at their root, smallest module zip first, whose root package's tests pass\n" +
	"  (`go test .`) in under two minutes; the first two.\n" +
	"- **Rust:** the crates whose Debian source package (`rust-NAME`) build-depends on no other\n" +
	"  crate, so that every dependency and dev-dependency resolves offline, smallest tarball first;\n" +
	"  the crate's source taken from its binary package `librust-NAME-dev` (the mirror serves few\n" +
	"  `rust-*` source packages), with a `#[test]` in it, and `cargo test` passing at least five\n" +
	"  tests offline against `/usr/share/cargo/registry`; the first two, after 6 run.\n" +
	"- **The seed:** the nine projects of the corpus before the rule stay, hand-picked, since their\n" +
	"  cells are pinned to their lines: Go uuid, toml, x/sync and xxhash; C cjson (CMake, Unity),\n" +
	"  zlib (configure and make, its own test programs) and libyaml (autotools); Rust semver and\n" +
	"  strsim. The rule never picks them again.\n" +
	"- **The team's own:** for Catch2, doctest and Criterion, for which the rule chose none, a\n" +
	"  tiny library of this repository's own (`e2e/realworld/testdata/own`) with its tests in the\n" +
	"  framework, built with CMake and run as one CTest test against Debian's packages (`catch2`,\n" +
	"  `doctest-dev`, `libcriterion-dev`): catch2-own, doctest-own and criterion-own.\n\n" +
	"The picker builds every candidate it tries, so it runs by hand, once; it keeps its outcome in\n" +
	"the corpus cache (`pick/outcome.tsv`), listed below when `make verdicts` runs where it ran. Its\n" +
	"chosen list is written into `scripts/corpus.sh`, which fetches it, and\n" +
	"`e2e/realworld/projects_test.go` (how each builds), with each project's fault sites in\n" +
	"`cells_test.go`: a new machine fetches the list without picking.\n\n"

// Markers around the picker's outcome, so that a run without it keeps the
// last one written.
const (
	pickBegin = "<!-- corpus-pick outcome -->\n"
	pickEnd   = "<!-- end of corpus-pick outcome -->\n"
)

// pickOutcome renders the picker's outcome file, or returns the one the
// previous docs/VERDICTS.md holds when this machine has none.
func pickOutcome(previous string) string {
	b, err := os.ReadFile(filepath.Join(corpusDir(), "pick", "outcome.tsv"))
	if err != nil {
		if i := strings.Index(previous, pickBegin); i >= 0 {
			if j := strings.Index(previous[i:], pickEnd); j >= 0 {
				return previous[i : i+j+len(pickEnd)]
			}
		}
		return pickBegin + "(scripts/corpus-pick.sh has not run where this was written.)\n" + pickEnd
	}
	return pickBegin + renderPick(string(b)) + pickEnd
}

// renderPick turns outcome.tsv (group, package, version, tarball bytes,
// result, build system, configure options, seconds, note) into a table:
// per group, each candidate tried, then those without a test and those the
// mirror did not serve, one row each.
func renderPick(tsv string) string {
	var b strings.Builder
	b.WriteString("### What the rule chose and skipped\n\n")
	b.WriteString("| group | package | tarball | outcome | build | time | why |\n|---|---|---|---|---|---|---|\n")
	var order []string
	rows, unserved, untested := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(tsv), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 9 {
			continue
		}
		group, pkg, size, result, kind, args, secs, note := f[0], f[1], f[3], f[4], f[5], f[6], f[7], f[8]
		note = strings.TrimRight(strings.TrimSpace(note), ":;")
		if len(order) == 0 || order[len(order)-1] != group {
			order = append(order, group)
		}
		switch {
		case strings.HasPrefix(note, "fetch failed"):
			unserved[group] = append(unserved[group], pkg)
			continue
		case note == "no #[test] in its source":
			untested[group] = append(untested[group], pkg)
			continue
		}
		if kind != "" && args != "" {
			kind += " " + args
		}
		if secs != "" && secs != "0" {
			secs += "s"
		} else {
			secs = ""
		}
		if size != "-" && size != "" {
			size = fmt.Sprintf("%s kB", kbytes(size))
		}
		rows[group] = append(rows[group], fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n",
			group, pkg, size, result, kind, secs, strings.ReplaceAll(note, "|", `\|`)))
	}
	for _, g := range order {
		b.WriteString(strings.Join(rows[g], ""))
		if len(untested[g]) > 0 {
			fmt.Fprintf(&b, "| %s | %s | | skipped | | | no #[test] in its source |\n", g, strings.Join(untested[g], ", "))
		}
		if len(unserved[g]) > 0 {
			fmt.Fprintf(&b, "| %s | %s | | not served | | | the mirror answered 404 for the package's files |\n",
				g, strings.Join(unserved[g], ", "))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// kbytes is a byte count in kB, rounded up.
func kbytes(n string) string {
	var v int
	fmt.Sscan(n, &v)
	return fmt.Sprint((v + 1023) / 1024)
}
