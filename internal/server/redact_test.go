package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/redact"
)

// TestSecretEnvRedactedInEchoes: session defaults echo env values except
// secret ones, in text and structured output, while the program run with
// those defaults still gets the real value.
func TestSecretEnvRedactedInEchoes(t *testing.T) {
	store := t.TempDir()
	srv, _ := New(newServices(t, &config.Config{Store: config.Store{Path: store + "/out.db"}}), Options{})
	cs := connect(t, srv, nil)
	const secret = "s3cr3t-Value-91"
	// DB_URL's name says nothing; its value is a URL with a password.
	env := map[string]any{"API_TOKEN": secret, "db_password": secret + "x", "VISIBLE_OPT": "plain-42", "DB_URL": "postgres://alice:" + secret + "@db.internal/app"}
	for _, tool := range []string{"session_set_defaults", "session_show_defaults"} {
		args := map[string]any{}
		if tool == "session_set_defaults" {
			args["env"] = env
		}
		res, text := callText(t, cs, tool, args)
		structured, _ := json.Marshal(res.StructuredContent)
		for _, echo := range []string{text, string(structured)} {
			if strings.Contains(echo, secret) {
				t.Errorf("%s echoes a secret value: %s", tool, echo)
			}
			if !strings.Contains(echo, "plain-42") || !strings.Contains(echo, redact.Mask) || !strings.Contains(echo, "postgres://alice:") {
				t.Errorf("%s: want VISIBLE_OPT shown and the secrets masked: %s", tool, echo)
			}
		}
	}
	// The defaults keep the real value: the program sees it.
	res, text := callText(t, cs, "run", map[string]any{"program": "printenv", "args": []string{"API_TOKEN"}})
	if res.IsError || !strings.Contains(text, secret) {
		t.Errorf("run with the defaults' env: %s", text)
	}
}
