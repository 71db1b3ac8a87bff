package defaults

import (
	"reflect"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

type buildArgs struct {
	ProjectPath   string            `json:"project_path,omitempty"`
	WorkspacePath string            `json:"workspace_path,omitempty"`
	Scheme        string            `json:"scheme,omitempty"`
	SimulatorID   string            `json:"simulator_id,omitempty"`
	SimulatorName string            `json:"simulator_name,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Verbose       bool              `json:"verbose,omitempty"`
}

var buildReq = Requirements{
	AllOf: []string{"scheme"},
	OneOf: [][]string{{"project_path", "workspace_path"}},
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name     string
		explicit map[string]any
		defs     Values
		want     map[string]any
		wantErr  string
	}{
		{
			name:     "defaults fill absent fields",
			explicit: map[string]any{},
			defs:     Values{Scheme: "App", ProjectPath: "/p/App.xcodeproj"},
			want:     map[string]any{"scheme": "App", "project_path": "/p/App.xcodeproj"},
		},
		{
			name:     "explicit wins over default",
			explicit: map[string]any{"scheme": "Other"},
			defs:     Values{Scheme: "App", ProjectPath: "/p"},
			want:     map[string]any{"scheme": "Other", "project_path": "/p"},
		},
		{
			name:     "null and empty explicit values are absent",
			explicit: map[string]any{"scheme": nil, "project_path": ""},
			defs:     Values{Scheme: "App", ProjectPath: "/p"},
			want:     map[string]any{"scheme": "App", "project_path": "/p"},
		},
		{
			name:     "two explicit sides of a pair",
			explicit: map[string]any{"project_path": "/a", "workspace_path": "/b", "scheme": "S"},
			wantErr:  "project_path",
		},
		{
			name:     "explicit side prunes the default's other side",
			explicit: map[string]any{"workspace_path": "/w.xcworkspace"},
			defs:     Values{Scheme: "App", ProjectPath: "/p"},
			want:     map[string]any{"scheme": "App", "workspace_path": "/w.xcworkspace"},
		},
		{
			name:     "simulator pair pruned too",
			explicit: map[string]any{"simulator_name": "iPhone 16", "scheme": "S", "project_path": "/p"},
			defs:     Values{SimulatorID: "ABC"},
			want:     map[string]any{"scheme": "S", "project_path": "/p", "simulator_name": "iPhone 16"},
		},
		{
			name:     "env merged key by key",
			explicit: map[string]any{"env": map[string]any{"B": "explicit", "C": "3"}, "scheme": "S", "project_path": "/p"},
			defs:     Values{Env: map[string]string{"A": "1", "B": "default"}},
			want: map[string]any{"scheme": "S", "project_path": "/p",
				"env": map[string]any{"A": "1", "B": "explicit", "C": "3"}},
		},
		{
			name:     "missing all_of names the field and the fix",
			explicit: map[string]any{"project_path": "/p"},
			wantErr:  `missing scheme: pass it as an argument, or set it once with session_set_defaults {"scheme": "..."}`,
		},
		{
			name:     "missing one_of names the group",
			explicit: map[string]any{"scheme": "S"},
			wantErr:  "missing one of project_path, workspace_path",
		},
		{
			name:     "defaults the tool does not accept are ignored",
			explicit: map[string]any{"scheme": "S", "project_path": "/p"},
			defs:     Values{Vmlinux: "/boot/vmlinux"},
			want:     map[string]any{"scheme": "S", "project_path": "/p"},
		},
	}
	fields := FieldsOf[buildArgs]()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Merge(tt.explicit, tt.defs, fields, buildReq)
			if tt.wantErr != "" {
				if !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Merge error = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Merge = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMergeIntoKeepsNonManagedFields(t *testing.T) {
	in := buildArgs{WorkspacePath: "/w", Verbose: true}
	out, err := MergeInto(in, Values{Scheme: "App", ProjectPath: "/p"}, buildReq)
	if err != nil {
		t.Fatal(err)
	}
	want := buildArgs{WorkspacePath: "/w", Scheme: "App", Verbose: true}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("MergeInto = %+v, want %+v", out, want)
	}
}

func TestStoreProfilesAreIsolated(t *testing.T) {
	s, err := NewStore(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set("", Values{Scheme: "App", Env: map[string]string{"A": "1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set("ci", Values{Scheme: "CI"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Get("").Scheme; got != "App" {
		t.Errorf("default profile scheme = %q, want App", got)
	}
	if err := s.Use("ci"); err != nil {
		t.Fatal(err)
	}
	got := s.Get("")
	if got.Scheme != "CI" || got.Env != nil {
		t.Errorf("ci profile = %+v, want only scheme CI", got)
	}
	if !reflect.DeepEqual(s.Profiles(), []string{"ci", "default"}) {
		t.Errorf("Profiles = %v", s.Profiles())
	}
}

func TestStoreSetMergesEnvAndReplacesExclusiveSide(t *testing.T) {
	s, _ := NewStore(nil, "")
	s.Set("", Values{SimulatorName: "iPhone", Env: map[string]string{"A": "1"}})
	got, err := s.Set("", Values{SimulatorID: "UDID", Env: map[string]string{"B": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Values{SimulatorID: "UDID", Env: map[string]string{"A": "1", "B": "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Set = %+v, want %+v", got, want)
	}
}

func TestStoreClear(t *testing.T) {
	s, _ := NewStore(nil, "")
	s.Set("", Values{Scheme: "App", ProjectDir: "/src"})
	got, err := s.Clear("", []string{"scheme"})
	if err != nil || got.Scheme != "" || got.ProjectDir != "/src" {
		t.Fatalf("Clear(scheme) = %+v, %v", got, err)
	}
	if _, err := s.Clear("", []string{"schema"}); err == nil || !strings.Contains(err.Error(), `unknown default "schema"`) {
		t.Errorf("Clear(unknown) error = %v", err)
	}
	if got, _ := s.Clear("", nil); !got.IsZero() || !s.Get("").IsZero() {
		t.Errorf("Clear(all) left %+v", s.Get(""))
	}
}

func TestInvalidProfileName(t *testing.T) {
	s, _ := NewStore(nil, "")
	for _, name := range []string{"", "../x", "a b", strings.Repeat("x", 65)} {
		if err := s.Use(name); err == nil {
			t.Errorf("Use(%q) succeeded", name)
		}
	}
}

func TestMergeRefusesDefaultsWithBothSides(t *testing.T) {
	_, err := Merge(map[string]any{"scheme": "S"}, Values{ProjectPath: "/p", WorkspacePath: "/w"}, FieldsOf[buildArgs](), buildReq)
	if err == nil || !strings.Contains(err.Error(), "session defaults set both workspace_path and project_path") {
		t.Errorf("err = %v", err)
	}
	if _, err := Merge(map[string]any{"scheme": "S", "project_path": "/x"}, Values{ProjectPath: "/p", WorkspacePath: "/w"}, FieldsOf[buildArgs](), buildReq); err != nil {
		t.Errorf("an explicit side should settle it: %v", err)
	}
}

type embeddedArgs struct {
	Scheme string `json:"scheme,omitempty"`
}

type withEmbedded struct {
	embeddedArgs
	Verbose bool `json:"verbose,omitempty"`
}

func TestFieldsOfFollowsUnexportedEmbedded(t *testing.T) {
	if got := strings.Join(FieldsOf[withEmbedded](), ","); got != "scheme,verbose" {
		t.Errorf("FieldsOf = %s, want scheme,verbose", got)
	}
}

// IsZero agrees with Map: a field counts as set exactly when Map lists it
// (an empty list or map is not set).
func TestIsZeroAgreesWithMap(t *testing.T) {
	for _, v := range []Values{
		{}, {BuildCommand: []string{}}, {Env: map[string]string{}},
		{Scheme: "S"}, {BuildCommand: []string{"make"}}, {Env: map[string]string{"A": "1"}}, {TimeoutS: 5},
	} {
		if got, want := v.IsZero(), len(v.Map()) == 0; got != want {
			t.Errorf("%+v: IsZero %v, Map lists %v", v, got, v.Map())
		}
	}
}
