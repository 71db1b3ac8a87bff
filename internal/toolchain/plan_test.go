package toolchain

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const proj = "/src/proj"

func TestBuildPlanArgv(t *testing.T) {
	tests := []struct {
		name string
		tc   Toolchain
		o    Options
		want [][]string
	}{
		{"go default", Go, Options{}, [][]string{{"go", "build", "./..."}}},
		{"go debug tags jobs", Go, Options{Configuration: "Debug", Features: []string{"integration", "netgo"}, Jobs: 2, Targets: []string{"./cmd/x"}, Args: []string{"-race"}},
			[][]string{{"go", "build", "-p=2", "-gcflags=all=-N -l", "-tags=integration,netgo", "-race", "./cmd/x"}}},
		{"go release", Go, Options{Configuration: "release"}, [][]string{{"go", "build", "-trimpath", "./..."}}},
		{"golang alias", "golang", Options{}, [][]string{{"go", "build", "./..."}}},
		{"cargo default", Cargo, Options{}, [][]string{{"cargo", "build"}}},
		{"cargo release packages features", Cargo, Options{Configuration: "release", Targets: []string{"core", "cli"}, Features: []string{"a", "b"}, Jobs: 4},
			[][]string{{"cargo", "build", "--release", "--package=core", "--package=cli", "--features=a,b", "--jobs=4"}}},
		{"cargo dev is the default profile", Cargo, Options{Configuration: "dev"}, [][]string{{"cargo", "build"}}},
		{"cargo custom profile", Cargo, Options{Configuration: "bench-lto"}, [][]string{{"cargo", "build", "--profile=bench-lto"}}},
		{"cmake default", CMake, Options{}, [][]string{
			{"cmake", "-S", proj, "-B", proj + "/.triage/build/debug", "-DCMAKE_BUILD_TYPE=Debug"},
			{"cmake", "--build", proj + "/.triage/build/debug", "--config", "Debug"},
		}},
		{"cmake release targets", CMake, Options{Configuration: "Release", Targets: []string{"app", "lib"}, Jobs: 3, BuildDir: "out/rel", ConfigureArgs: []string{"-DFOO=ON", "-GNinja"}, Args: []string{"--", "-v"}}, [][]string{
			{"cmake", "-S", proj, "-B", proj + "/out/rel", "-DCMAKE_BUILD_TYPE=Release", "-DFOO=ON", "-GNinja"},
			{"cmake", "--build", proj + "/out/rel", "--config", "Release", "--parallel=3", "--target", "app", "lib", "--", "-v"},
		}},
		{"cmake absolute build dir", CMake, Options{BuildDir: "/tmp/b/../b2"}, [][]string{
			{"cmake", "-S", proj, "-B", "/tmp/b2", "-DCMAKE_BUILD_TYPE=Debug"},
			{"cmake", "--build", "/tmp/b2", "--config", "Debug"},
		}},
		{"swift default", Swift, Options{}, [][]string{{"swift", "build"}}},
		{"swift clean", Swift, Options{Clean: true, Targets: []string{"A"}}, [][]string{
			{"swift", "package", "clean"},
			{"swift", "build", "--target=A"},
		}},
		{"swift one step per target", Swift, Options{Configuration: "Release", Targets: []string{"A", "B"}, Jobs: 1}, [][]string{
			{"swift", "build", "--configuration=release", "--jobs=1", "--target=A"},
			{"swift", "build", "--configuration=release", "--jobs=1", "--target=B"},
		}},
		{"make default", Make, Options{}, [][]string{{"make"}}},
		{"make targets vars", Make, Options{Targets: []string{"all", "tools"}, Args: []string{"CC=clang"}, Jobs: 8},
			[][]string{{"make", "--jobs=8", "CC=clang", "all", "tools"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := BuildPlan(tt.tc, proj, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := argvs(steps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("argv:\n got %q\nwant %q", got, tt.want)
			}
			for _, s := range steps {
				if s.Format != "" || s.Filter != "" {
					t.Errorf("build step %s has Format %q Filter %q", s.Name, s.Format, s.Filter)
				}
			}
		})
	}
}

func TestTestPlanArgv(t *testing.T) {
	tests := []struct {
		name       string
		tc         Toolchain
		o          Options
		want       [][]string
		format     string
		filter     string
		wantDirEnd string // suffix of the test step's Dir
	}{
		{name: "go default", tc: Go, o: Options{}, want: [][]string{{"go", "test", "-json", "./..."}}, format: "go-json"},
		{name: "go one run pattern with subtest", tc: Go, o: Options{Run: []string{"TestA/sub_1"}},
			want: [][]string{{"go", "test", "-json", "-run=TestA/sub_1", "./..."}}, format: "go-json", filter: "-run=TestA/sub_1"},
		{name: "go patterns joined", tc: Go, o: Options{Run: []string{"^TestA$", "TestB"}, Skip: []string{"Slow"}, Args: []string{"-count=1"}, Targets: []string{"./pkg/..."}},
			want:   [][]string{{"go", "test", "-json", "-run=(^TestA$)|(TestB)", "-skip=Slow", "-count=1", "./pkg/..."}},
			format: "go-json", filter: "-run=(^TestA$)|(TestB) -skip=Slow"},
		{name: "go pattern with '-' inside", tc: Go, o: Options{Run: []string{"Test-x"}},
			want: [][]string{{"go", "test", "-json", "-run=Test-x", "./..."}}, format: "go-json", filter: "-run=Test-x"},
		{name: "cargo default", tc: Cargo, o: Options{}, want: [][]string{{"cargo", "test", "--no-fail-fast"}}, format: "cargo"},
		{name: "cargo filters go to the harness", tc: Cargo, o: Options{Run: []string{"parse", "lex::"}, Skip: []string{"slow"}, Targets: []string{"core"}, Args: []string{"--lib", "--", "--test-threads=1"}},
			want:   [][]string{{"cargo", "test", "--no-fail-fast", "--package=core", "--lib", "--", "parse", "lex::", "--skip=slow", "--test-threads=1"}},
			format: "cargo", filter: "parse lex:: --skip=slow"},
		{name: "cmake test", tc: CMake, o: Options{Configuration: "Release", Run: []string{"unit.*", "smoke"}, Skip: []string{"flaky"}, Jobs: 2, Args: []string{"--timeout", "60"}},
			want: [][]string{
				{"cmake", "-S", proj, "-B", proj + "/.triage/build/release-g", "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_FLAGS_INIT=-g", "-DCMAKE_CXX_FLAGS_INIT=-g", "--no-warn-unused-cli"},
				{"cmake", "--build", proj + "/.triage/build/release-g", "--config", "Release", "--parallel=2"},
				{"ctest", "--output-on-failure", "-C", "Release", "-R", "(unit.*)|(smoke)", "-E", "flaky", "--parallel=2", "--output-junit", proj + "/.triage/build/release-g/triage-ctest-junit.xml", "--timeout", "60"},
			},
			format: "ctest", filter: "-R (unit.*)|(smoke) -E flaky", wantDirEnd: "/.triage/build/release-g"},
		{name: "swift filters", tc: Swift, o: Options{Run: []string{"AppTests.LoginTests"}, Skip: []string{"testSlow"}},
			want:   [][]string{{"swift", "test", "--filter=AppTests.LoginTests", "--skip=testSlow"}},
			format: "xctest", filter: "--filter=AppTests.LoginTests --skip=testSlow"},
		{name: "make test target", tc: Make, o: Options{Args: []string{"V=1"}}, want: [][]string{{"make", "V=1", "test"}}},
		{name: "make explicit targets", tc: Make, o: Options{Targets: []string{"unit"}}, want: [][]string{{"make", "unit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := TestPlan(tt.tc, proj, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := argvs(steps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("argv:\n got %q\nwant %q", got, tt.want)
			}
			last := steps[len(steps)-1]
			if last.Name != StepTest {
				t.Errorf("last step is %q, want %q", last.Name, StepTest)
			}
			if last.Format != tt.format || last.Filter != tt.filter {
				t.Errorf("Format, Filter = %q, %q; want %q, %q", last.Format, last.Filter, tt.format, tt.filter)
			}
			if !strings.HasSuffix(last.Dir, proj+tt.wantDirEnd) {
				t.Errorf("Dir = %q, want %s%s", last.Dir, proj, tt.wantDirEnd)
			}
		})
	}
}

func TestCTestWritesJUnit(t *testing.T) {
	steps, err := TestPlan(CMake, proj, Options{BuildDir: "b"})
	if err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	if last.ReportFile != proj+"/b/triage-ctest-junit.xml" || last.ReportFormat != "junit" {
		t.Errorf("ReportFile, ReportFormat = %q, %q", last.ReportFile, last.ReportFormat)
	}
}

func TestCargoTestAsksForBacktraces(t *testing.T) {
	steps, err := TestPlan(Cargo, proj, Options{Env: map[string]string{"A": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := steps[0].Env; got["RUST_BACKTRACE"] != "1" || got["A"] != "1" {
		t.Errorf("Env = %v, want RUST_BACKTRACE=1 and A=1", got)
	}
	steps, err = TestPlan(Cargo, proj, Options{Env: map[string]string{"RUST_BACKTRACE": "full"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := steps[0].Env["RUST_BACKTRACE"]; got != "full" {
		t.Errorf("RUST_BACKTRACE = %q, the caller's value must win", got)
	}
}

func TestStepEnvIsACopy(t *testing.T) {
	env := map[string]string{"X": "1"}
	steps, err := TestPlan(CMake, proj, Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	steps[0].Env["X"] = "changed"
	if env["X"] != "1" || steps[1].Env["X"] != "1" {
		t.Error("steps share the caller's env map or each other's")
	}
}

func TestPlanRefusals(t *testing.T) {
	tests := []struct {
		name   string
		tc     Toolchain
		test   bool
		o      Options
		option string // OptionError.Option expected, "" for another error
		msg    string // substring of the message
	}{
		{"negative jobs", Go, false, Options{Jobs: -1}, "jobs", "negative"},
		{"target read as option", Make, false, Options{Targets: []string{"-f/etc/passwd"}}, "targets", "starts with '-'"},
		{"filter read as option", Cargo, true, Options{Run: []string{"--ignored"}}, "run", "starts with '-'"},
		{"empty filter", Go, true, Options{Run: []string{" "}}, "run", "empty"},
		{"NUL in target", Go, false, Options{Targets: []string{"a\x00b"}}, "targets", "NUL"},
		{"go bad regexp", Go, true, Options{Run: []string{"Test(A"}}, "run", "missing closing )"},
		{"go subtest pattern joined", Go, true, Options{Run: []string{"TestA/x", "TestB"}}, "run", "level by level"},
		{"go unknown configuration", Go, false, Options{Configuration: "fast"}, "configuration", "debug"},
		{"go build with filter", Go, false, Options{Run: []string{"TestA"}}, "run/skip", "test tool"},
		{"cargo bad profile", Cargo, false, Options{Configuration: "re lease"}, "configuration", "profile name"},
		{"swift unknown configuration", Swift, true, Options{Configuration: "RelWithDebInfo"}, "configuration", "debug and release"},
		{"swift test targets", Swift, true, Options{Targets: []string{"A"}}, "targets", "--filter"},
		{"swift test parallel", Swift, true, Options{Args: []string{"--parallel"}}, "args", "serially"},
		{"clean on cargo", Cargo, false, Options{Clean: true}, "clean", "only swift"},
		{"clean on a test", Swift, true, Options{Clean: true}, "clean", "build"},
		{"swift test workers", Swift, true, Options{Args: []string{"--num-workers=4"}}, "args", "--num-workers=4: triage runs swift test serially"},
		{"make configuration", Make, false, Options{Configuration: "Release"}, "configuration", "no standard configuration"},
		{"make filter", Make, true, Options{Run: []string{"x"}}, "run/skip", "no test filter"},
		{"features on cmake", CMake, false, Options{Features: []string{"x"}}, "features", "only go"},
		{"build dir on go", Go, false, Options{BuildDir: "b"}, "configure_args/build_dir", "only cmake, meson and autotools"},
		{"configure args on make", Make, false, Options{ConfigureArgs: []string{"--enable-x"}}, "configure_args/build_dir", "only cmake, meson and autotools"},
		{"bad env name", Go, false, Options{Env: map[string]string{"A=B": "1"}}, "env", "invalid variable name"},
		{"NUL in env value", Go, false, Options{Env: map[string]string{"A": "\x00"}}, "env", "NUL"},
		{"unknown toolchain", "bazel", false, Options{}, "", "known toolchains are go, cargo, cmake, meson, autotools, swift, make"},
		{"xcode toolchain", "xcodebuild", true, Options{}, "", "xcode workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := BuildPlan
			if tt.test {
				plan = TestPlan
			}
			steps, err := plan(tt.tc, proj, tt.o)
			if err == nil {
				t.Fatalf("no error; steps %q", argvs(steps))
			}
			var oe *OptionError
			if errors.As(err, &oe) != (tt.option != "") || (oe != nil && oe.Option != tt.option) {
				t.Errorf("error %#v: want an OptionError for %q", err, tt.option)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

func TestPlanNeedsADirectory(t *testing.T) {
	if _, err := BuildPlan(Go, "", Options{}); err == nil {
		t.Error("BuildPlan with no directory: no error")
	}
}

func TestCommandPlan(t *testing.T) {
	steps, err := CommandPlan(StepTest, []string{"./run tests.sh", "--fast"}, proj, Options{Args: []string{"x"}, Env: map[string]string{"K": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Step{Name: StepTest, Argv: []string{"./run tests.sh", "--fast", "x"}, Dir: proj, Env: map[string]string{"K": "v"}}
	if !reflect.DeepEqual(steps, []Step{want}) {
		t.Errorf("got %+v, want %+v", steps, want)
	}
	if got := steps[0].CommandLine(); got != `'./run tests.sh' --fast x` {
		t.Errorf("CommandLine = %s", got)
	}

	bad := []struct {
		name string
		kind string
		argv []string
		o    Options
		msg  string
	}{
		{"empty argv", StepBuild, nil, Options{}, "empty command"},
		{"empty program", StepBuild, []string{""}, Options{}, "empty command"},
		{"unknown kind", "deploy", []string{"x"}, Options{}, "unknown step kind"},
		{"filter with a command", StepTest, []string{"x"}, Options{Run: []string{"a"}}, "put it in the command"},
		{"jobs with a command", StepBuild, []string{"x"}, Options{Jobs: 2}, "put it in the command"},
		{"bad env", StepBuild, []string{"x"}, Options{Env: map[string]string{"": "1"}}, "invalid variable name"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CommandPlan(tt.kind, tt.argv, proj, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want one saying %q", err, tt.msg)
			}
		})
	}
}

func TestCommandLineQuoting(t *testing.T) {
	s := Step{Argv: []string{"go", "build", "-gcflags=all=-N -l", "it's", "", "a|b"}}
	want := `go build '-gcflags=all=-N -l' 'it'\''s' '' 'a|b'`
	if got := s.CommandLine(); got != want {
		t.Errorf("CommandLine = %s, want %s", got, want)
	}
}

func TestParse(t *testing.T) {
	for name, want := range map[string]Toolchain{"go": Go, " Go ": Go, "golang": Go, "CARGO": Cargo, "rust": Cargo, "cmake": CMake, "ctest": CMake, "Meson": Meson, "autotools": Autotools, "autoconf": Autotools, "Automake": Autotools, "swift": Swift, "swiftpm": Swift, "make": Make, "gmake": Make} {
		got, err := Parse(name)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	_, err := Parse("ninja")
	var ue *UnknownToolchainError
	if !errors.As(err, &ue) || ue.Name != "ninja" || len(ue.Known) != 7 {
		t.Errorf("Parse(ninja) error = %#v, want *UnknownToolchainError listing 7", err)
	}
	if _, err := Parse("Xcode"); !errors.Is(err, ErrXcode) {
		t.Errorf("Parse(Xcode) error = %v, want ErrXcode", err)
	}
	if _, err := Parse(""); err == nil {
		t.Error("Parse(\"\"): no error")
	}
}

func TestPickTestTarget(t *testing.T) {
	tests := []struct{ makefile, want string }{
		{"all:\n\tcc x.c\ntest: all\n\t./x\n", "test"},
		{"all:\ncheck: all\n\t./x\n", "check"},
		{"check test: all\n", "test"},
		{"check:\ntest:\n", "test"},
		{".PHONY: check\ncheck:: a\n", "check"},
		{"test := 1\ncheck: a\n", "check"},
		{"test ::= 1\ncheck:\n", "check"},
		{"TESTS = x test: y\ncheck:\n", "check"},
		{"\ttest:\ncheck:\n", "check"},
		{"# test:\ncheck:\n", "check"},
		{"$(X) test: y\ncheck:\n", "check"},
		{"", "test"},
		{strings.Repeat("x", 2<<20) + "\ncheck:\n", "test"}, // a line past the scanner's limit stops the scan
	}
	for _, tt := range tests {
		name := tt.makefile
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			if got := pickTestTarget(strings.NewReader(tt.makefile)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func argvs(steps []Step) [][]string {
	out := make([][]string, len(steps))
	for i, s := range steps {
		out[i] = s.Argv
	}
	return out
}
