package spawn

import "testing"

// The probe answers with its reason, and the same answer twice (cached).
func TestHardwareWatchpointsProbe(t *testing.T) {
	ok, why := HardwareWatchpoints()
	if why == "" {
		t.Fatal("no reason given")
	}
	t.Logf("hardware watchpoints delivered: %t (%s)", ok, why)
	if ok2, why2 := HardwareWatchpoints(); ok2 != ok || why2 != why {
		t.Errorf("second answer %t %q differs", ok2, why2)
	}
}
