package realworld

// Project is one corpus entry: where scripts/corpus.sh put it, how a user
// would prepare a fresh copy, and the triage options that build and test it.
type Project struct {
	Dir       string     // under the corpus directory
	Toolchain string     // triage's --toolchain, also given to triage filter
	Tools     []string   // commands the project needs on PATH
	Prepare   [][]string // run in the copy before triage (./configure)
	Targets   []string   // triage's targets, when not the whole project
}

var projects = map[string]Project{
	"uuid":    {Dir: "go/uuid", Toolchain: "go", Tools: []string{"go"}},
	"toml":    {Dir: "go/toml", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"."}},
	"xsync":   {Dir: "go/xsync", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"./errgroup"}},
	"xxhash":  {Dir: "go/xxhash", Toolchain: "go", Tools: []string{"go"}, Targets: []string{"."}},
	"cjson":   {Dir: "c/cjson", Toolchain: "cmake", Tools: []string{"cmake", "ctest", "gcc", "gdb"}},
	"zlib":    {Dir: "c/zlib", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}}},
	"libyaml": {Dir: "c/libyaml", Toolchain: "make", Tools: []string{"make", "gcc", "gdb"}, Prepare: [][]string{{"./configure"}}},
	"semver":  {Dir: "rust/semver", Toolchain: "cargo", Tools: []string{"cargo", "gdb"}},
	"strsim":  {Dir: "rust/strsim", Toolchain: "cargo", Tools: []string{"cargo", "gdb"}},
}
