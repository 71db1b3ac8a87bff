package hangers

import (
	"path/filepath"
	"testing"
)

// The programs of the stall watch's tests: three that stop making
// progress (PipeReader, GoChanDeadlock, and ABBA) and three that never do
// though they may look idle (SleepSteps, Spin, Printer). Each prints
// "ready" once it is in the state the test is about.

// cProgram writes src as name.c and builds it with -g -O0 -pthread and
// flags: every C program here is built by it.
func cProgram(t testing.TB, name, src string, flags ...string) Program {
	t.Helper()
	Need(t, "gcc")
	dir := t.TempDir()
	write(t, dir, map[string]string{name + ".c": src})
	p := Program{Dir: dir, Source: name + ".c", Bin: filepath.Join(dir, name)}
	argv := append([]string{"gcc", "-g", "-O0", "-pthread"}, flags...)
	run(t, dir, nil, append(argv, "-o", p.Bin, name+".c")...)
	return p
}

// PipeReader is a C program blocked reading a pipe whose write end it
// holds itself: nobody will ever write ("READ-PIPE").
func PipeReader(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "piperead", pipeReadC)
}

const pipeReadC = `#include <stdio.h>
#include <unistd.h>

int main(void) {
	int fds[2];
	char c;
	if (pipe(fds) != 0)
		return 1;
	puts("ready");
	fflush(stdout);
	return read(fds[0], &c, 1) == 1 ? 0 : 2; /* READ-PIPE */
}
`

// SleepSteps is a C program that sleeps ARG seconds (default 40) one
// second at a time, silently, then exits 0: a sleeper, never hung.
func SleepSteps(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "sleepsteps", sleepStepsC)
}

const sleepStepsC = `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 40;
	puts("ready");
	fflush(stdout);
	for (int i = 0; i < n; i++)
		sleep(1);
	return 0;
}
`

// Spin is a C program that computes forever, silently: busy, never hung.
func Spin(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "spin", spinC)
}

const spinC = `#include <stdio.h>

int main(void) {
	volatile unsigned long n = 0;
	puts("ready");
	fflush(stdout);
	for (;;)
		n++;
}
`

// Printer is a Go program that prints a line every ARG seconds (default
// 10) from a ticker, and does nothing else: its runtime waits on a timer.
func Printer(t testing.TB) Program {
	t.Helper()
	return goProgram(t, "printer", printerGo)
}

const printerGo = `package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	secs := 10
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		time.Sleep(time.Duration(secs) * time.Second)
		fmt.Println("tick", i)
	}
}
`

// GoChanDeadlock is a Go program whose main goroutine sends on a channel
// ("SEND-TASK") that its worker would read only after main sends it a
// result ("RECV-RESULT"): neither ever moves. A ten-minute timer, as a go
// test binary's -timeout alarm, keeps the runtime from calling it a
// deadlock; it prints "ready" once both goroutines are parked.
func GoChanDeadlock(t testing.TB) Program {
	t.Helper()
	return goProgram(t, "chandeadlock", goChanDeadlock)
}

const goChanDeadlock = `package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

func worker(tasks <-chan int, results <-chan int) {
	r := <-results // RECV-RESULT
	<-tasks
	fmt.Println(r)
}

// ready prints "ready" once main and the worker are parked on channels.
func ready() {
	buf := make([]byte, 1<<20)
	for {
		s := string(buf[:runtime.Stack(buf, true)])
		if strings.Contains(s, "[chan send]") && strings.Contains(s, "[chan receive]") {
			fmt.Println("ready")
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func main() {
	time.AfterFunc(10*time.Minute, func() { panic("alarm") })
	tasks, results := make(chan int), make(chan int)
	go worker(tasks, results)
	go ready()
	tasks <- 1 // SEND-TASK
	results <- 1
}
`

// goProgram writes src as a module's main.go and builds it.
func goProgram(t testing.TB, name, src string) Program {
	t.Helper()
	Need(t, "go")
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module " + name + "\n\ngo 1.22\n", "main.go": src})
	p := Program{Dir: dir, Source: "main.go", Bin: filepath.Join(dir, name)}
	run(t, dir, map[string]string{"CGO_ENABLED": "0"}, "go", "build", "-o", p.Bin, ".")
	return p
}

// TimedWaiter is a C program whose main thread waits ARG seconds (default
// 2) at a time in pthread_cond_timedwait on a condition nobody signals
// (an absolute futex timeout), forever, silently: a sleeper, never hung.
func TimedWaiter(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "timedwait", timedWaitC)
}

const timedWaitC = `#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
	int secs = argc > 1 ? atoi(argv[1]) : 2;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t never = PTHREAD_COND_INITIALIZER;
	puts("ready");
	fflush(stdout);
	pthread_mutex_lock(&m);
	for (;;) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += secs;
		pthread_cond_timedwait(&never, &m, &until); /* TIMED-WAIT */
	}
}
`
