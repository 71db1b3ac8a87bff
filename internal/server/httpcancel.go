package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// cancelOnDisconnect ends the calls of a request whose client goes before
// their answers: the SDK runs a call in its session's context, not in the
// HTTP request's (except for protocol versions newer than clients speak),
// so a client that closes its connection would leave its call running (a
// search of minutes, a program to its end). When the request's context
// ends (the connection closed) the calls it carried are cancelled as a
// client's notifications/cancelled would cancel them: the same path.
// Cancelling a call that has already answered does nothing.
func cancelOnDisconnect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || sid == "" || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body) // boundBody has it in memory, bounded
		if err != nil {
			refuse(w, http.StatusBadRequest, "reading the request body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
		if r.Context().Err() == nil {
			return
		}
		for _, id := range requestIDs(body) {
			cancel := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client disconnected"}}`, id)
			c := r.Clone(context.WithoutCancel(r.Context())) // the token's identity stays: the session is its
			c.Body, c.ContentLength = io.NopCloser(bytes.NewReader([]byte(cancel))), int64(len(cancel))
			next.ServeHTTP(discard{header: http.Header{}}, c)
		}
	})
}

// requestIDs are the ids of the requests (messages with a method and an
// id) in a JSON-RPC body, one message or a batch; none if it is neither.
func requestIDs(body []byte) []json.RawMessage {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var batch []message
	if err := json.Unmarshal(body, &batch); err != nil {
		var one message
		if json.Unmarshal(body, &one) != nil {
			return nil
		}
		batch = []message{one}
	}
	var ids []json.RawMessage
	for _, m := range batch {
		if m.Method != "" && m.Method != "initialize" && len(m.ID) > 0 && string(m.ID) != "null" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// discard is a ResponseWriter that drops the answer: nobody is left to
// read it.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
