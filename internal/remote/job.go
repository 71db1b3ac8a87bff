package remote

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/triage-dev/triage/internal/spawn"
)

// jobScript is the wrapper that runs a job on the host (perl, which
// every Debian system has: perl-base is essential, and macOS ships it).
//
//go:embed job.pl
var jobScript string

// Job is a program to run on a host, as spawn.Spec describes a local one.
// Paths are the host's.
type Job struct {
	Argv  []string
	Dir   string // "" is the remote user's home directory
	Env   map[string]string
	Unset []string
	Stdin string
	// CoreDumps raises the program's core size limit to its hard limit, as
	// spawn.Spec.CoreDumps does.
	CoreDumps bool
}

// Exit is how a job's program ended on its host, as the wrapper saw it.
type Exit struct {
	Pid    int
	Status syscall.WaitStatus
	Exe    string // the program's absolute path on the host
	Cwd    string
	// CorePattern and CoreUsesPid are the host's core settings, read when
	// the program was killed by a signal.
	CorePattern string
	CoreUsesPid bool
	// OrphansKilled: what the program left in its process group was
	// killed after it exited.
	OrphansKilled bool
	// ExecError says why the program could not be started (not found, not
	// executable, a bad working directory); the other fields are empty.
	ExecError string
}

// Started is the local side of one job: the argv and standard input of
// the ssh command that runs it, and what its wrapper reports.
type Started struct {
	// Argv runs the job through the connection's master.
	Argv []string
	// Stdin is the ssh command's standard input: the job's input, then
	// held open until Release, so that the wrapper sees the end of it only
	// when this side is gone.
	Stdin io.Reader

	nonce   []byte
	release chan struct{}
	once    sync.Once

	mu   sync.Mutex
	exit *Exit
}

// Start prepares job to run on the connection's host: run Argv with Stdin
// (one process whose stdout and stderr are one stream), pass its output
// through Output, then read Exit. Call Release once the ssh command has
// ended.
func (c *Conn) Start(job Job) (*Started, error) {
	if len(job.Argv) == 0 || job.Argv[0] == "" {
		return nil, &spawn.StartError{Kind: spawn.KindEmptyArgv, Detail: "argv is empty: give the program to run on " + c.Host + " as argv[0]"}
	}
	if err := spawn.CheckEnv(job.Argv[0], job.Env, job.Unset); err != nil {
		return nil, err
	}
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	s := &Started{nonce: []byte("\x1e" + hex.EncodeToString(b)), release: make(chan struct{})}
	s.Argv = c.ShellArgv(coreLimit(job.CoreDumps) + "exec " + Command(wrapperArgv(string(s.nonce[1:]), job)))
	s.Stdin = io.MultiReader(strings.NewReader(strconv.Itoa(len(job.Stdin))+"\n"+job.Stdin), holdOpen(s.release))
	return s, nil
}

// coreLimit is the shell's prelude setting the core size limit.
func coreLimit(on bool) string {
	if on {
		return `ulimit -S -c "$(ulimit -H -c)" 2>/dev/null; `
	}
	return "ulimit -S -c 0 2>/dev/null; "
}

func wrapperArgv(nonce string, job Job) []string {
	argv := []string{"perl", "-e", jobScript, nonce, job.Dir}
	keys := make([]string, 0, len(job.Env))
	for k := range job.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	argv = append(argv, strconv.Itoa(len(keys)))
	for _, k := range keys {
		argv = append(argv, k+"="+job.Env[k])
	}
	argv = append(argv, strconv.Itoa(len(job.Unset)))
	argv = append(argv, job.Unset...)
	return append(argv, job.Argv...)
}

// Release ends the job's standard input: the wrapper, if it still runs,
// ends the program. Call it once the ssh command has ended.
func (s *Started) Release() { s.once.Do(func() { close(s.release) }) }

// Exit is what the wrapper reported, or an error saying why there is
// nothing: the ssh command ended before the wrapper could report (the
// connection dropped, the call was cancelled, perl is missing on the host).
func (s *Started) Exit() (*Exit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit == nil {
		return nil, fmt.Errorf("the job's wrapper reported no exit status")
	}
	return s.exit, nil
}

// Output returns a writer that passes the job's output on to next, less
// the wrapper's report, which it reads. It takes whole lines (as
// spawn.Spec.Combined gives them).
func (s *Started) Output(next io.Writer) io.Writer { return &exitFilter{s: s, next: next} }

type exitFilter struct {
	s    *Started
	next io.Writer
}

func (f *exitFilter) Write(p []byte) (int, error) {
	i := bytes.Index(p, f.s.nonce)
	if i < 0 {
		return f.next.Write(p)
	}
	end := bytes.IndexByte(p[i:], '\n')
	if end < 0 {
		end = len(p) - i
	}
	f.s.record(p[i+len(f.s.nonce) : i+end])
	before, after := p[:i], p[min(i+end+1, len(p)):]
	rest := append([]byte{}, before...)
	if len(before) > 0 && before[len(before)-1] != '\n' {
		rest = append(rest, '\n') // the program's last line had none
	}
	rest = append(rest, after...)
	if len(rest) > 0 {
		if _, err := f.next.Write(rest); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// record parses the report's "\x1fKEY=VALUE" fields.
func (s *Started) record(fields []byte) {
	e := &Exit{}
	for _, kv := range strings.Split(string(fields), "\x1f") {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.TrimSpace(v)
		switch k {
		case "pid":
			e.Pid, _ = strconv.Atoi(v)
		case "status":
			n, _ := strconv.ParseUint(v, 10, 32)
			e.Status = syscall.WaitStatus(n)
		case "exe":
			e.Exe = v
		case "cwd":
			e.Cwd = v
		case "pattern":
			e.CorePattern = v
		case "uses_pid":
			e.CoreUsesPid = v != "" && v != "0"
		case "orphans":
			e.OrphansKilled = v == "1"
		case "exec":
			e.ExecError = v
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exit = e
}

// holdOpen is a reader that blocks until done is closed, then ends.
type holdOpen chan struct{}

func (h holdOpen) Read([]byte) (int, error) {
	<-h
	return 0, io.EOF
}
