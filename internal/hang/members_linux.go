package hang

import "fmt"

func exePath(pid int) string {
	return fmt.Sprintf("/proc/%d/exe", pid)
}

func cmdlinePath(pid int) string {
	return fmt.Sprintf("/proc/%d/cmdline", pid)
}
