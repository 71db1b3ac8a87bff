package apple

import (
	"errors"
	"fmt"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/xcode"
)

func TestUsageOf(t *testing.T) {
	for _, err := range []error{
		&xcode.SchemeError{Scheme: "Nope"},
		fmt.Errorf("wrapped: %w", &xcode.SimulatorNotBootedError{Device: xcode.Device{Name: "iPhone 16"}}),
		&xcode.AppNotRunningError{BundleID: "a.b"},
		&spawn.StartError{Program: "xcrun"},
		fmt.Errorf("%w: generic/platform=iOS cannot test", xcode.ErrDestination),
	} {
		got := UsageOf(err)
		if !fault.Is(got, fault.KindUsage) || got.Error() != err.Error() || !errors.Is(got, err) {
			t.Errorf("UsageOf(%v) = %#v, want a usage error wrapping it", err, got)
		}
	}
	plain := errors.New("xcodebuild: timed out")
	if got := UsageOf(plain); got != plain {
		t.Errorf("UsageOf(%v) = %v, want it unchanged", plain, got)
	}
	if UsageOf(nil) != nil {
		t.Error("UsageOf(nil) is not nil")
	}
}

func TestAvailableFunc(t *testing.T) {
	if err := (Options{}).AvailableFunc()(); (err == nil) != (xcode.Available() == nil) {
		t.Errorf("the default check says %v, xcode.Available %v", err, xcode.Available())
	}
	injected := errors.New("no Xcode here")
	if err := (Options{Available: func() error { return injected }}).AvailableFunc()(); err != injected {
		t.Errorf("the injected check says %v", err)
	}
}
