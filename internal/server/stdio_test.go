package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLineConnFraming feeds hostile lines to the line transport and checks that
// each is answered (or skipped) and that the next valid message still arrives.
func TestLineConnFraming(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		wantCode float64 // 0: no error reply expected
	}{
		{"blank lines are skipped", "\n  \n", 0},
		{"not JSON", "hello\n", -32700},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"method":` + "\n", -32700},
		{"JSON but not a message", "[1,2]\n", -32600},
		{"message without method or result", `{"jsonrpc":"2.0","id":3}` + "\n", -32600},
		{"two messages on one line", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n", -32700},
		{"a message and garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"}x` + "\n", -32700},
		{"over the size limit", "\"" + strings.Repeat("x", maxLine+10) + "\"\n", -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			conn, _ := (&lineTransport{r: inR, w: outW}).Connect(context.Background())
			defer conn.Close()
			go func() {
				io.WriteString(inW, tt.input)
				io.WriteString(inW, `{"jsonrpc":"2.0","id":42,"method":"ping"}`+"\n")
			}()
			replies := make(chan map[string]any, 4)
			go func() {
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					var m map[string]any
					json.Unmarshal(sc.Bytes(), &m)
					replies <- m
				}
			}()
			msg, err := conn.Read(context.Background())
			if err != nil {
				t.Fatalf("Read after bad input: %v", err)
			}
			b, _ := json.Marshal(msg)
			if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "ping" || req.ID.Raw() != int64(42) {
				t.Fatalf("next message = %s, want the ping of id 42", b)
			}
			if tt.wantCode != 0 {
				m := <-replies
				e, _ := m["error"].(map[string]any)
				if e["code"] != tt.wantCode {
					t.Errorf("reply = %v, want code %v", m, tt.wantCode)
				}
			}
			outW.Close()
		})
	}
}

func TestLineConnEOFAndClose(t *testing.T) {
	conn, _ := (&lineTransport{r: strings.NewReader(""), w: io.Discard}).Connect(context.Background())
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Errorf("Read at EOF = %v, want io.EOF", err)
	}
	r, _ := io.Pipe()
	conn, _ = (&lineTransport{r: r, w: io.Discard}).Connect(context.Background())
	done := make(chan error)
	go func() { _, err := conn.Read(context.Background()); done <- err }()
	conn.Close()
	if err := <-done; err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
}

// FuzzLineConn: any input line is either a message or answered with an error;
// the connection never stops reading before EOF.
func FuzzLineConn(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":3}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, line []byte) {
		in := bytes.NewReader(append(append(bytes.ReplaceAll(line, []byte("\n"), nil), '\n'), []byte(`{"jsonrpc":"2.0","id":99,"method":"last/ping"}`+"\n")...))
		conn, _ := (&lineTransport{r: in, w: io.Discard}).Connect(context.Background())
		defer conn.Close()
		for {
			msg, err := conn.Read(context.Background())
			if err == io.EOF {
				t.Fatal("EOF before the last message")
			}
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "last/ping" {
				return
			}
		}
	})
}
