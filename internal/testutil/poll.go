package testutil

import "time"

// pollGone is WaitGone's fallback where the kernel cannot notify us.
func pollGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for ProcessAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
