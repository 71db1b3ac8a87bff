package realworld

// Project is one corpus entry: where scripts/corpus.sh put it, how a user
// would prepare a fresh copy, and the triage options that build and test it.
type Project struct {
	Dir       string     // under the corpus directory, or under testdata/own when Own
	Own       bool       // the team's own project, in the repository (own_test.go), not the corpus
	Toolchain string     // triage's --toolchain, also given to triage filter
	Tools     []string   // commands the project needs on PATH
	Prepare   [][]string // run in the copy before triage (./configure)
	Targets   []string   // triage's targets, when not the whole project
	// ConfigureArgs are triage's configure_args (cmake or meson setup
	// options): the ones the package's debian/rules gives to enable its
	// tests, which scripts/corpus-pick.sh built it with.
	ConfigureArgs []string
	Env           map[string]string // the environment it builds in (triage's env; a cell's env goes over it)
	Rule          string            // the rule's group that chose it (scripts/corpus-pick.sh); "" for the seed
	Runner        string            // what runs its tests and prints their results
	CI            bool              // its pristine run is in the default `go test` subset
	// PristineKnown is what triage answers today on the pristine run, while
	// a fix is pending (Cell.Known of its pristine cell).
	PristineKnown string
}

var projects = map[string]Project{
	// The seed: the corpus before the rule (docs/VERDICTS.md), hand-picked.
	"uuid":    {Dir: "go/uuid", Toolchain: "go", Tools: []string{"go"}, CI: true},
	"toml":    {Dir: "go/toml", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"."}},
	"xsync":   {Dir: "go/xsync", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"./errgroup"}},
	"xxhash":  {Dir: "go/xxhash", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"."}},
	"cjson":   {Dir: "c/cjson", Toolchain: "cmake", Tools: []string{"cmake", "ctest", "gcc", "gdb"}, CI: true},
	"zlib":    {Dir: "c/zlib", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}}, CI: true},
	"libyaml": {Dir: "c/libyaml", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}}},
	"semver":  {Dir: "rust/semver", Toolchain: "cargo", Tools: []string{"cargo", "gdb"}, CI: true},
	"strsim":  {Dir: "rust/strsim", Toolchain: "cargo", Tools: []string{"cargo", "gdb"}},

	// Chosen by scripts/corpus-pick.sh (docs/VERDICTS.md, "How the corpus is chosen").
	"isatty":   {Dir: "go/isatty", Toolchain: "go", Tools: []string{"go"}, Rule: "go", Runner: "go test", CI: true},
	"strftime": {Dir: "go/strftime", Toolchain: "go", Tools: []string{"go"}, Rule: "go", Runner: "go test"},
	"urdfdom": {Dir: "c/urdfdom", Toolchain: "cmake", Tools: []string{"cmake", "ctest", "g++", "gdb"},
		ConfigureArgs: []string{"-DBUILD_TESTING=ON"}, Rule: "gtest", Runner: "CTest, GoogleTest"},
	"coordgen": {Dir: "c/schroedinger-coordgenlibs", Toolchain: "cmake", Tools: []string{"cmake", "ctest", "g++"},
		Rule: "boost-test", Runner: "CTest, Boost.Test"},
	"ngtcp2": {Dir: "c/ngtcp2", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}},
		Rule: "cunit", Runner: "automake's test driver, CUnit"},
	"riemann": {Dir: "c/riemann-c-client", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}},
		Rule: "check", Runner: "automake's test driver, Check"},
	"perl-destruct-level": {Dir: "c/libperl-destruct-level-perl", Toolchain: "make", Tools: []string{"perl", "make", "gcc", "gdb"},
		Prepare: [][]string{{"perl", "Makefile.PL"}}, Rule: "tap", Runner: "make test: Test::Harness (TAP)"},
	"nss-unknown": {Dir: "c/libnss-unknown", Toolchain: "meson", Tools: []string{"meson", "ninja", "gcc", "getent"},
		Rule: "meson", Runner: "meson test, a sharness script (TAP)", CI: true},
	"libvc": {Dir: "c/libvc", Toolchain: "make", Tools: []string{"make", "gcc", "shunit2"}, Prepare: [][]string{{"./configure"}},
		Rule: "autotools", Runner: "automake's test driver, shunit2", CI: true},
	"libomemo": {Dir: "c/libomemo", Toolchain: "cmake", Tools: []string{"cmake", "ctest", "gcc", "gdb"},
		Rule: "cmocka", Runner: "CTest, cmocka"},
	"matches": {Dir: "rust/matches", Toolchain: "cargo", Tools: []string{"cargo", "gdb"}, Rule: "rust", Runner: "cargo test (libtest)"},
}
