package toolchain

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
)

// ctestJUnitFile is written by ctest (3.21+) into the build directory.
const ctestJUnitFile = "triage-ctest-junit.xml"

// ctestCustom is the CTestCustom.cmake triage writes into its own build
// directory (CTest reads it there, any version): passing tests' output kept
// whole up to 1 MiB in the JUnit report.
const ctestCustom = "# Written by triage: keep passing tests' output in the report.\nset(CTEST_CUSTOM_MAXIMUM_PASSED_TEST_OUTPUT_SIZE 1048576)\n"

// cmakeBuild configures, then builds. Configuring an already configured
// build directory is cheap and picks up changed options.
func cmakeBuild(p *planInput) ([]Step, error) {
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return nil, p.errorf("run/skip", "select tests with the test tool, not build")
	}
	return cmakeConfigureAndBuild(p, p.o.Args), nil
}

// cmakeTest configures, builds, then runs ctest in the build directory.
// Args go to ctest; there, the build step builds every target unless
// Targets narrows it.
func cmakeTest(p *planInput) ([]Step, error) {
	steps := cmakeConfigureAndBuild(p, nil)
	cfg := planCMakeConfig(p)
	buildDir := cfg.buildDir
	argv := []string{"ctest", "--output-on-failure"}
	if c := cfg.buildType; c != "" {
		argv = append(argv, "-C", c)
	}
	rerun := slices.Clone(argv) // ctest of the configuration: one test's rerun adds -R
	var filter []string
	if len(p.o.Run) > 0 {
		filter = append(filter, "-R", ctestPattern(p.o.Run))
	}
	if len(p.o.Skip) > 0 {
		filter = append(filter, "-E", ctestPattern(p.o.Skip))
	}
	argv = append(argv, filter...)
	argv = append(argv, jobsArg("--parallel", p.o.Jobs)...)
	junit := filepath.Join(buildDir, ctestJUnitFile)
	argv = append(argv, "--output-junit", junit)
	argv = append(argv, p.o.Args...)
	test := p.step(StepTest, argv...)
	test.Dir = buildDir
	test.Format = testreport.FormatCTest
	test.ReportFile, test.ReportFormat = junit, testreport.FormatJUnit
	test.Filter = strings.Join(filter, " ")
	sanitizeEnv(&test, p.o.Check)
	if p.o.Coverage {
		if clang := clangPath(cmakeCompiler(p.o), p.o); clang != "" {
			cmakeClangCoverage(p, &test, clang, buildDir)
		} else {
			test.Coverage = cmakeCoverage(buildDir)
		}
		test.Coverage.Rerun = rerun
	}
	if p.o.BuildDir == "" {
		// In triage's own build directory: CTest keeps only 1024 bytes of a
		// passing test's output in its report, and the end of it (a test
		// framework's summary) tells a finished test program from one that
		// exited 0 halfway.
		test.Files = map[string]string{"CTestCustom.cmake": ctestCustom}
	}
	return append(steps, test), nil
}

// cmakeConfigureAndBuild configures and builds in triage's own build
// directory of the configuration (see planCMakeConfig), with a build type
// that has debug info when neither the project nor the caller sets one.
func cmakeConfigureAndBuild(p *planInput, buildArgs []string) []Step {
	cfg := planCMakeConfig(p)
	buildDir := cfg.buildDir
	configure := []string{"cmake", "-S", p.dir, "-B", buildDir}
	if c := cfg.buildType; c != "" {
		configure = append(configure, "-DCMAKE_BUILD_TYPE="+c)
	}
	switch {
	case p.o.Check != "":
		configure = append(configure, cmakeSanitizeArgs(p.o.Check, cfg.addDebugInfo, buildDir)...)
	case cfg.addDebugInfo:
		configure = append(configure, "-DCMAKE_C_FLAGS_INIT=-g", "-DCMAKE_CXX_FLAGS_INIT=-g")
	}
	if p.o.Coverage || cfg.addDebugInfo || p.o.Check != "" {
		// The flags of every language are given; CMake need not warn of
		// those the project does not use.
		configure = append(configure, "--no-warn-unused-cli")
	}
	configure = append(configure, configureArgs(p.o)...)

	build := []string{"cmake", "--build", buildDir}
	if c := cfg.buildType; c != "" {
		// For multi-config generators (Ninja Multi-Config, Xcode, Visual
		// Studio), which ignore CMAKE_BUILD_TYPE.
		build = append(build, "--config", c)
	}
	build = append(build, jobsArg("--parallel", p.o.Jobs)...)
	if len(p.o.Targets) > 0 {
		build = append(append(build, "--target"), p.o.Targets...)
	}
	build = append(build, buildArgs...)
	conf := p.step(StepConfigure, configure...)
	steps := cmakeSanitizeSetup(p, &conf, cfg)
	return append(steps, conf, p.step(StepBuild, build...))
}

// ctestPattern joins regular expressions into one alternation.
func ctestPattern(patterns []string) string {
	if len(patterns) == 1 {
		return patterns[0]
	}
	parts := make([]string, len(patterns))
	for i, pat := range patterns {
		parts[i] = "(" + pat + ")"
	}
	return strings.Join(parts, "|")
}
