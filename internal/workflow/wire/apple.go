package wire

import (
	"time"

	"github.com/triage-dev/triage/internal/xcode"
)

// Product is a target's build product.
type Product struct {
	Target      string `json:"target"`
	Path        string `json:"path"`
	Executable  string `json:"executable,omitempty"`
	BundleID    string `json:"bundle_id,omitempty"`
	ProductType string `json:"product_type,omitempty" jsonschema:"com.apple.product-type.application, ..."`
	Platform    string `json:"platform,omitempty" jsonschema:"iphonesimulator, macosx, ..."`
}

// Simulator is a simulator device.
type Simulator struct {
	UDID              string `json:"udid"`
	Name              string `json:"name"`
	State             string `json:"state" jsonschema:"Booted, Shutdown, ..."`
	Available         bool   `json:"available"`
	AvailabilityError string `json:"availability_error,omitempty"`
	DeviceType        string `json:"device_type,omitempty"`
	Runtime           string `json:"runtime"`
	OSName            string `json:"os_name" jsonschema:"iOS, watchOS, xrOS, ..."`
	OSVersion         string `json:"os_version"`
	DataPath          string `json:"data_path,omitempty"`
	LogPath           string `json:"log_path,omitempty"`
}

// AppCrashReport is a crash report written during a run, and why it belongs
// to it.
type AppCrashReport struct {
	Path      string `json:"path"`
	Process   string `json:"process"`
	Pid       int    `json:"pid,omitempty"`
	Exception string `json:"exception,omitempty" jsonschema:"EXC_BAD_ACCESS (SIGSEGV) and the like"`
	Summary   string `json:"summary" jsonschema:"who, how, where, why"`
	Role      string `json:"role" jsonschema:"app, test runner, testmanagerd or simulator"`
}

// TestSummary is a result bundle's summary.
type TestSummary struct {
	Title            string        `json:"title,omitempty"`
	Result           string        `json:"result"`
	Total            int           `json:"total"`
	Passed           int           `json:"passed"`
	Failed           int           `json:"failed"`
	Skipped          int           `json:"skipped"`
	ExpectedFailures int           `json:"expected_failures"`
	Failures         []TestFailure `json:"failures,omitempty"`
	Devices          []DeviceRun   `json:"devices,omitempty"`
	Environment      string        `json:"environment,omitempty"`
	Start            time.Time     `json:"start,omitzero"`
	Finish           time.Time     `json:"finish,omitzero"`
	Errors           []string      `json:"errors,omitempty" jsonschema:"build and runner errors"`
	Legacy           bool          `json:"legacy,omitempty" jsonschema:"read from the pre-Xcode 16 format"`
}

// TestFailure is one failed test of a result bundle.
type TestFailure struct {
	TestName   string `json:"test_name"`
	Target     string `json:"target,omitempty"`
	Text       string `json:"text"`
	Identifier string `json:"identifier,omitempty" jsonschema:"Target/Class/method()"`
	Location   string `json:"location,omitempty"`
}

// DeviceRun is the tests' counts on one device.
type DeviceRun struct {
	DeviceName       string `json:"device_name"`
	DeviceID         string `json:"device_id,omitempty"`
	Platform         string `json:"platform,omitempty"`
	OSVersion        string `json:"os_version,omitempty"`
	Architecture     string `json:"architecture,omitempty"`
	Model            string `json:"model,omitempty"`
	Configuration    string `json:"configuration,omitempty"`
	Passed           int    `json:"passed"`
	Failed           int    `json:"failed"`
	Skipped          int    `json:"skipped"`
	ExpectedFailures int    `json:"expected_failures"`
}

// ProductOf converts a build product.
func ProductOf(p xcode.Product) Product { return Product(p) }

// ProductsOf converts build products.
func ProductsOf(ps []xcode.Product) []Product { return list(ps, ProductOf) }

// SimulatorsOf converts simulator devices.
func SimulatorsOf(ds []xcode.Device) []Simulator {
	return list(ds, func(d xcode.Device) Simulator { return Simulator(d) })
}

// AppCrashReportsOf converts crash reports found for a run.
func AppCrashReportsOf(rs []xcode.CrashReport) []AppCrashReport {
	return list(rs, func(r xcode.CrashReport) AppCrashReport { return AppCrashReport(r) })
}

// TestSummaryOf converts a result bundle's summary, nil for nil.
func TestSummaryOf(s *xcode.TestSummary) *TestSummary {
	return ptr(s, func(s xcode.TestSummary) TestSummary {
		return TestSummary{
			Title: s.Title, Result: s.Result, Total: s.Total, Passed: s.Passed, Failed: s.Failed,
			Skipped: s.Skipped, ExpectedFailures: s.ExpectedFailures, Environment: s.Environment,
			Failures: list(s.Failures, func(f xcode.TestFailure) TestFailure { return TestFailure(f) }),
			Devices:  list(s.Devices, func(d xcode.DeviceRun) DeviceRun { return DeviceRun(d) }),
			Start:    s.Start, Finish: s.Finish, Errors: s.Errors, Legacy: s.Legacy,
		}
	})
}

// PhysicalDevice is a device devicectl knows.
type PhysicalDevice struct {
	Identifier    string `json:"identifier" jsonschema:"CoreDevice's identifier"`
	UDID          string `json:"udid,omitempty"`
	Name          string `json:"name,omitempty"`
	Model         string `json:"model,omitempty" jsonschema:"iPhone 14 Pro, ..."`
	Platform      string `json:"platform,omitempty" jsonschema:"iOS, watchOS, ..."`
	OSVersion     string `json:"os_version,omitempty"`
	Transport     string `json:"transport,omitempty" jsonschema:"wired or localNetwork"`
	Pairing       string `json:"pairing,omitempty" jsonschema:"paired, unpaired"`
	Tunnel        string `json:"tunnel,omitempty" jsonschema:"connected, disconnected, unavailable"`
	DeveloperMode string `json:"developer_mode,omitempty" jsonschema:"enabled or disabled"`
}

// PhysicalDevicesOf converts the devices devicectl lists.
func PhysicalDevicesOf(ds []xcode.PhysicalDevice) []PhysicalDevice {
	return list(ds, func(d xcode.PhysicalDevice) PhysicalDevice { return PhysicalDevice(d) })
}
