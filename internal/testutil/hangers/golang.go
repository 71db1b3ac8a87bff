package hangers

import (
	"path/filepath"
	"testing"
)

// GoMutexes is a Go program whose main goroutine and a worker each hold
// one mutex and wait for the other's ("LOCK-B-IN-MAIN", "LOCK-A-IN-WORKER").
// A ticking goroutine keeps the runtime from calling it a deadlock, as a
// server's background work would. With extra > 0 it also parks that many
// idle goroutines (for measuring a large dump).
func GoMutexes(t testing.TB, extra int) Program {
	t.Helper()
	Need(t, "go")
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module mutexes\n\ngo 1.22\n", "main.go": goMutexes})
	p := Program{Dir: dir, Source: "main.go", Bin: filepath.Join(dir, "mutexes")}
	run(t, dir, map[string]string{"CGO_ENABLED": "0"}, "go", "build", "-ldflags=-X=main.extra="+itoa(extra), "-o", p.Bin, ".")
	return p
}

const goMutexes = `package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

var extra = "0"

var a, b sync.Mutex

func worker(held chan<- bool) {
	b.Lock()
	held <- true
	a.Lock() // LOCK-A-IN-WORKER
}

// ready prints "ready" once two goroutines wait in sync.Mutex.Lock.
func ready() {
	buf := make([]byte, 64<<20)
	for {
		n := runtime.Stack(buf, true)
		if strings.Count(string(buf[:n]), "[sync.Mutex.Lock") >= 2 {
			fmt.Println("ready")
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func main() {
	n, _ := strconv.Atoi(extra)
	park := make(chan bool)
	for i := 0; i < n; i++ {
		go func() { <-park }()
	}
	go func() {
		for range time.Tick(time.Second) {
		}
	}()
	held := make(chan bool)
	a.Lock()
	go worker(held)
	<-held
	go ready()
	b.Lock() // LOCK-B-IN-MAIN
}
`

// GoChanTest is a Go module whose TestWaitsForever blocks on a channel
// receive ("RECV-FOREVER"); a helper goroutine prints "ready" once it is
// parked there.
func GoChanTest(t testing.TB) Program {
	t.Helper()
	Need(t, "go")
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module hang\n\ngo 1.22\n", "hang_test.go": goChanTest})
	return Program{Dir: dir, Source: "hang_test.go"}
}

const goChanTest = `package hang

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPasses(t *testing.T) {}

func TestWaitsForever(t *testing.T) {
	go func() {
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if strings.Contains(string(buf[:n]), "[chan receive]:\nhang.TestWaitsForever") {
				fmt.Println("ready")
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	ch := make(chan int)
	<-ch // RECV-FOREVER
}
`

// GoWorkersGone is a Go program whose main goroutine waits on a
// WaitGroup of three ("WAIT-WORKERS") whose two workers have each called
// Done and ended: no goroutine is left that could. A ten-minute timer
// keeps the runtime from calling it a deadlock; it prints "ready" before
// it waits (the stall watch's samples tell when it is parked).
func GoWorkersGone(t testing.TB) Program {
	t.Helper()
	return goProgram(t, "workersgone", goWorkersGone)
}

const goWorkersGone = `package main

import (
	"fmt"
	"sync"
	"time"
)

func main() {
	time.AfterFunc(10*time.Minute, func() { panic("alarm") })
	var wg sync.WaitGroup
	wg.Add(3)
	for range 2 {
		go wg.Done()
	}
	fmt.Println("ready")
	wg.Wait() // WAIT-WORKERS
}
`

// GoChanTestBinary is GoChanTest with its test binary built by go test
// -c (Bin): run alone, a Go test deadlocked from its start, with no go
// command's build or link before it.
func GoChanTestBinary(t testing.TB) Program {
	t.Helper()
	p := GoChanTest(t)
	p.Bin = filepath.Join(p.Dir, "hang.test")
	run(t, p.Dir, map[string]string{"CGO_ENABLED": "0"}, "go", "test", "-c", "-o", p.Bin, ".")
	return p
}
