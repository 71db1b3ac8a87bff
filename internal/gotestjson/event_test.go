package gotestjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// realLines are the lines of the go test -json logs recorded for the test
// report's and the log filter's tests: real test2json output of passing,
// failing, panicking, racing and unbuildable packages.
func realLines(t testing.TB) [][]byte {
	t.Helper()
	var logs []string
	for _, dir := range []string{"../testreport/testdata", "../logfilter/testdata"} {
		m, err := filepath.Glob(filepath.Join(dir, "go-test-json*.log"))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, m...)
	}
	if len(logs) < 5 {
		t.Fatalf("found %d go test -json logs, want the recorded ones: %v", len(logs), logs)
	}
	var lines [][]byte
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	return lines
}

// same checks Decode against json.Unmarshal into a zero Event: the same
// event, or an error for the same line.
func same(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	var want, got Event
	wantErr := json.Unmarshal(line, &want)
	gotErr := Decode(line, &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr == nil && got != want) {
		t.Fatalf("line %q:\n Decode %+v, %v\n json   %+v, %v", line, got, gotErr, want, wantErr)
	}
	var fromString Event
	strErr := DecodeString(string(line), &fromString)
	if (strErr == nil) != (gotErr == nil) || fromString != got {
		t.Fatalf("line %q:\n DecodeString %+v, %v\n Decode       %+v, %v", line, fromString, strErr, got, gotErr)
	}
	var output Event
	outErr := DecodeOutput(line, &output)
	if wantErr != nil {
		got = Event{}
	}
	keep := Event{Action: got.Action, Output: got.Output, Elapsed: got.Elapsed}
	if (outErr == nil) != (gotErr == nil) || outErr == nil && output != keep && output != got {
		// (encoding/json, for a line the fast path refuses, fills every field)
		t.Fatalf("line %q:\n DecodeOutput %+v, %v\n Decode       %+v, %v", line, output, outErr, got, gotErr)
	}
	var scratch, scratchOutput Event
	return decodeFast(line, &scratch, false) && decodeFast(line, &scratchOutput, true)
}

func TestDecodeMatchesEncodingJSONOnRealLogs(t *testing.T) {
	var events, fast int
	for _, l := range realLines(t) {
		if same(t, l) {
			fast++
		}
		if bytes.HasPrefix(l, []byte("{")) {
			events++
		}
	}
	// The fast path is the point: every event test2json wrote must take it.
	if fast != events || events == 0 {
		t.Errorf("%d of %d recorded events took the fast path", fast, events)
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"Action":"output","Package":"p","Output":"got \u003cnil\u003e \u0026 more\n"}`,
		`{"Action":"output","Output":"\ud83d\ude00 pair, \ud83d lone, \ude00 low, \ud83d\u0041 broken"}`,
		`{"Action":"output","Output":"\"q\" \\ \/ \b \f \r \t é 日本"}`,
		`{"Action":"output","Output":"bad \x escape"}`,
		`{"Action":"output","Output":"bad \u12G4 hex"}`,
		"{\"Action\":\"output\",\"Output\":\"raw \x01 control\"}",
		"{\"Action\":\"output\",\"Output\":\"invalid \xff utf8\"}",
		`{"Action":"pass","Elapsed":0.013}`,
		`{"Action":"pass","Elapsed":-1.5e-3}`,
		`{"Action":"pass","Elapsed":1e400}`,
		`{"Action":"pass","Elapsed":"1"}`,
		`{"Action":"pass","Elapsed":01}`,
		`{"Action":"pass","Elapsed":1.}`,
		`{"Action":"pass","Elapsed":null}`,
		`{"action":"run","TEST":"TestX"}`,
		`{"Action":"run","Test":"TestX","Test":"TestY"}`,
		`{"Act\u0069on":"run"}`,
		`{"Time":"2026-11-26T14:00:00Z","Action":"start","Package":"p","OutputType":"frame","N":12}`,
		`{"Action":"start","Extra":{"a":[1,2]},"Flag":true}`,
		`{"Action":"start"} trailing`,
		`{"Action":"start"}}`,
		` { "Action" : "start" , "Package" : "p" } `,
		`{"Action":"start",}`,
		`{}`,
		`{`,
		``,
		`[]`,
		`FAIL	p [build failed]`,
		`{"Action":"output","Output":"unterminated`,
		`{"Action":"output","Output":"ends in escape\`,
		`{"Action":"output","Output":"short \u12"}`,
	} {
		same(t, []byte(line))
	}
}

func FuzzDecode(f *testing.F) {
	for _, l := range realLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"Action":"output","Output":"\ud83d\ude00 \ud83d \u0041"}`))
	f.Add([]byte(`{"action":"pass","Elapsed":1e3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		same(t, line)
	})
}

// BenchmarkDecode reads the recorded logs' lines with Decode, with
// DecodeString and, for comparison, with json.Unmarshal.
func BenchmarkDecode(b *testing.B) {
	lines := realLines(b)
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(n)
		var ev Event
		for b.Loop() {
			for _, l := range lines {
				_ = Decode(l, &ev)
			}
		}
	})
	b.Run("string", func(b *testing.B) {
		strs := make([]string, len(lines))
		for i, l := range lines {
			strs[i] = string(l)
		}
		b.SetBytes(n)
		var ev Event
		for b.Loop() {
			for _, l := range strs {
				_ = DecodeString(l, &ev)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, l := range lines {
				var ev Event
				_ = json.Unmarshal(l, &ev)
			}
		}
	})
}
