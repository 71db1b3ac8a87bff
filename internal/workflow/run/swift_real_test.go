package run_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// swiftPackageFiles is a package with a library, an executable that serves
// until stopped, XCTest and Swift Testing tests that pass, fail, or crash
// the test process. Swift Testing needs a Swift 6 toolchain.
var swiftPackageFiles = map[string]string{
	"Package.swift": `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Demo",
    targets: [
        .target(name: "Demo"),
        .executableTarget(name: "Server", dependencies: ["Demo"]),
        .testTarget(name: "DemoTests", dependencies: ["Demo"]),
    ]
)
`,
	"Sources/Demo/Demo.swift": "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n",
	"Sources/Server/main.swift": `import Demo
import Foundation

FileHandle.standardOutput.write("serving \(add(1, 1))\n".data(using: .utf8)!)
while true { sleep(60) }
`,
	"Tests/DemoTests/AddTests.swift": `import XCTest
@testable import Demo

final class AddTests: XCTestCase {
    func testAdds() { XCTAssertEqual(add(2, 2), 4) }
    func testWrong() { XCTAssertEqual(add(2, 2), 5) }
}

final class CrashTests: XCTestCase {
    func testIndex() {
        let a: [Int] = []
        _ = a[add(1, 0)]
    }
}
`,
	"Tests/DemoTests/SwiftTestingTests.swift": `import Testing
@testable import Demo

@Test func addsST() { #expect(add(1, 1) == 2) }
@Test func wrongST() { #expect(add(1, 1) == 3) }
`,
}

// TestRealSwift runs build, test, clean and swift run against the swift on
// PATH, where there is one; TRIAGE_REAL_SWIFT=1 makes its absence a
// failure. CI machines without Swift skip it (.ci/allowed-skips).
func TestRealSwift(t *testing.T) {
	if _, err := exec.LookPath("swift"); err != nil {
		if os.Getenv("TRIAGE_REAL_SWIFT") == "1" {
			t.Fatalf("TRIAGE_REAL_SWIFT=1 but %v", err)
		}
		t.Skip("no swift on PATH: install a Swift 6 toolchain (swift.org) and set TRIAGE_REAL_SWIFT=1 to require it")
	}
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, swiftPackageFiles)
	call := func(tool string, args map[string]any) mcptest.Result {
		t.Helper()
		args["project_dir"], args["timeout_s"] = dir, 900 // a first build fetches nothing but compiles a while
		return c.Call(tool, args)
	}

	if r := call("build", map[string]any{}); r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BUILD SUCCEEDED") {
		t.Fatalf("build: %s", r.Text)
	}
	r := call("build", map[string]any{"clean": true})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BUILD SUCCEEDED") || !strings.Contains(r.Text, "; clean exit 0 ") {
		t.Fatalf("build with clean: %s", r.Text)
	}

	tests := []struct {
		name    string
		run     []string
		outcome string
		verdict string
		text    []string
	}{
		{"passing", []string{"AddTests/testAdds", "addsST"}, "ok", "TESTS PASSED: ", nil},
		{"failing", []string{"AddTests/testWrong", "wrongST"}, "failed", "TESTS FAILED: ", []string{"AddTests.swift:6", "SwiftTestingTests.swift:5"}},
		{"crashing", []string{"CrashTests"}, "failed", "CRASHED: ", []string{"testIndex"}},
	}
	for _, tt := range tests {
		r := call("test", map[string]any{"run": tt.run})
		if r.Outcome != tt.outcome || !strings.HasPrefix(r.FirstLine(), tt.verdict) {
			t.Errorf("%s: outcome %q verdict %q, want %q %q\n%s", tt.name, r.Outcome, r.FirstLine(), tt.outcome, tt.verdict, r.Text)
			continue
		}
		for _, s := range tt.text {
			if !strings.Contains(r.Text, s) {
				t.Errorf("%s: %q missing:\n%s", tt.name, s, r.Text)
			}
		}
	}

	start := call("process_start", map[string]any{"program": "swift", "args": []string{"run", "Server"}})
	id, _ := start.Out["id"].(string)
	if start.IsError || id == "" {
		t.Fatalf("process_start swift run Server: %s", start.Text)
	}
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 60})
	for !slices.Contains(out.Out["lines"].([]any), any("serving 2")) && out.Out["running"] == true {
		out = c.Call("process_output", map[string]any{"id": id, "cursor": out.Out["next_cursor"], "wait_s": 60})
	}
	if out.Out["running"] != true {
		t.Fatalf("swift run Server ended: %s", out.Text)
	}
	if list := c.Call("process_list", nil); !strings.Contains(list.Text, id) {
		t.Errorf("process_list: %s", list.Text)
	}
	if stop := c.Call("process_stop", map[string]any{"id": id}); !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") {
		t.Errorf("process_stop: %s", stop.Text)
	}
}
