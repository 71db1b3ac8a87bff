package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

var (
	bareOnce sync.Once
	bareBin  string
	bareErr  error
)

// bareServer builds the baseline server once.
func bareServer(b *testing.B) string {
	bareOnce.Do(func() {
		bareBin = filepath.Join(filepath.Dir(triageBin), "bareserver")
		out, err := exec.Command("go", "build", "-o", bareBin, "./testdata/bareserver").CombinedOutput()
		if err != nil {
			bareErr = err
			bareBin = string(out)
		}
	})
	if bareErr != nil {
		b.Fatalf("building bareserver: %v\n%s", bareErr, bareBin)
	}
	return bareBin
}

// coldStart starts argv, sends initialize and tools/list over stdio, and returns
// the time until tools/list is answered, the process's RSS at that point and
// the CPU time (user and system) it used in all.
func coldStart(b *testing.B, argv ...string) (time.Duration, int64, time.Duration) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TRIAGE_STORE=:memory:")
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			break
		}
	}
	elapsed := time.Since(start)
	rss := rssBytes(cmd.Process.Pid)
	stdin.Close()
	cmd.Wait()
	return elapsed, rss, cpuTime(cmd)
}

// cpuTime is the user and system time of a finished command.
func cpuTime(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func rssBytes(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkColdStart measures `triage serve` from exec to the tools/list answer,
// alternating with a bare go-sdk server so both see the same machine state.
// Targets: ratio <= 2, idle RSS <= 20 MB. The CPU time each process used
// (start, tools/list, exit) is reported too: on a busy machine it drifts
// less than the wall time.
func BenchmarkColdStart(b *testing.B) {
	bare := bareServer(b)
	var tri, base, triCPU, baseCPU []time.Duration
	var triRSS, baseRSS int64
	for b.Loop() {
		d, rss, cpu := coldStart(b, triageBin, "serve")
		tri, triRSS, triCPU = append(tri, d), max(triRSS, rss), append(triCPU, cpu)
		d, rss, cpu = coldStart(b, bare)
		base, baseRSS, baseCPU = append(base, d), max(baseRSS, rss), append(baseCPU, cpu)
	}
	b.ReportMetric(float64(testutil.Median(triCPU).Microseconds())/1000, "triage-cpu-ms")
	b.ReportMetric(float64(testutil.Median(baseCPU).Microseconds())/1000, "bare-cpu-ms")
	mt, mb := testutil.Median(tri), testutil.Median(base)
	b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(mt)/float64(mb), "ratio")
	b.ReportMetric(float64(triRSS)/(1<<20), "triage-RSS-MB")
	b.ReportMetric(float64(baseRSS)/(1<<20), "bare-RSS-MB")
}

// BenchmarkRunTrueOverhead calls `run /bin/true` through `triage serve` over
// stdio and runs /bin/true directly, alternately; it reports the median of
// each and the overhead. Target: overhead <= 3 ms.
func BenchmarkRunTrueOverhead(b *testing.B) {
	cmd := exec.Command(triageBin, "serve")
	cmd.Env = append(os.Environ(), "TRIAGE_STORE="+filepath.Join(b.TempDir(), "t.db"))
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	await := func(id int) {
		want := `"id":` + strconv.Itoa(id) + `,`
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				return
			}
		}
		b.Fatal("server closed stdout")
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	await(1)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	var viaTriage, direct []time.Duration
	id := 1
	for b.Loop() {
		id++
		start := time.Now()
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"run","arguments":{"program":"/bin/true"}}}`+"\n")
		await(id)
		viaTriage = append(viaTriage, time.Since(start))
		start = time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
	}
	mt, md := testutil.Median(viaTriage), testutil.Median(direct)
	b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
	b.ReportMetric(float64(md.Microseconds())/1000, "direct-ms")
	b.ReportMetric(float64((mt-md).Microseconds())/1000, "overhead-ms")
}

// benchBytes is the output size of the capture benchmark: TRIAGE_BENCH_BYTES
// (rounded down to whole 100-byte lines), default 1 GiB.
func benchBytes() int64 {
	size := int64(1 << 30)
	if v, err := strconv.ParseInt(os.Getenv("TRIAGE_BENCH_BYTES"), 10, 64); err == nil && v >= 100 {
		size = v
	}
	return size - size%100
}

// BenchmarkRunCapture runs a program printing 1 GiB through `triage call run`
// and reports the throughput of the whole path (process, indicator scan,
// store, excerpt) and triage's peak RSS; beside it, the same program's output
// read straight from a pipe and discarded. Targets: >= 300 MB/s, <= 64 MiB.
func BenchmarkRunCapture(b *testing.B) {
	big := crashers.Build(b, "bigoutput")
	size := benchBytes()
	var peak int64
	var viaTriage, direct, cpu time.Duration
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(triageBin, "call", "run", "--program", big, "--args", strconv.FormatInt(size, 10))
		cmd.Env = append(os.Environ(), "TRIAGE_STORE="+filepath.Join(b.TempDir(), "t.db"))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		stop := watchPeakRSS(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		viaTriage += time.Since(start)
		cpu += cpuTime(cmd)
		peak = max(peak, stop())

		start = time.Now()
		bare := exec.Command(big, strconv.FormatInt(size, 10))
		bare.Stdout = io.Discard // a pipe drained by io.Copy
		if err := bare.Run(); err != nil {
			b.Fatal(err)
		}
		direct += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(size)*n/viaTriage.Seconds()/1e6, "triage-MB/s")
	b.ReportMetric(float64(size)*n/direct.Seconds()/1e6, "direct-MB/s")
	b.ReportMetric(float64(size)*n/cpu.Seconds()/1e6, "MB/cpu-s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
}
