package spawn

import "syscall"

func init() {
	signalNames[syscall.SIGEMT] = "SIGEMT"
	signalNames[syscall.SIGINFO] = "SIGINFO"
}
