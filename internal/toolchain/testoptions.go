package toolchain

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxTestOptions bounds the options a hint names.
const maxTestOptions = 3

// TestOptionsOff names the options of a configured build directory that
// look like they turn the project's tests on and are off, as configure
// arguments that would turn them on: CMake's cache (`ENABLE_CJSON_TEST:BOOL=OFF`
// → `-DENABLE_CJSON_TEST=ON`), meson's project options (`tests` false →
// `-Dtests=true`). A run that found no tests says them, since projects
// often build their tests only when asked. nil when there are none or the
// directory is neither.
func TestOptionsOff(buildDir string) []string {
	if opts := cmakeTestOptionsOff(filepath.Join(buildDir, "CMakeCache.txt")); len(opts) > 0 {
		return opts
	}
	return mesonTestOptionsOff(filepath.Join(buildDir, "meson-info", "intro-buildoptions.json"))
}

// isTestOption: the option's name speaks of tests.
func isTestOption(name string) bool {
	return strings.Contains(strings.ToLower(name), "test")
}

func cmakeTestOptionsOff(cache string) []string {
	f, err := os.Open(cache)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < maxTestOptions {
		name, value, ok := strings.Cut(sc.Text(), ":BOOL=")
		if !ok || strings.HasPrefix(name, "//") || !isTestOption(name) {
			continue
		}
		switch strings.ToUpper(value) {
		case "OFF", "FALSE", "NO", "0", "N":
			out = append(out, "-D"+name+"=ON")
		}
	}
	return out
}

// mesonOption is one entry of meson-info/intro-buildoptions.json.
type mesonOption struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Section string `json:"section"`
	Value   any    `json:"value"`
}

func mesonTestOptionsOff(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 4<<20 {
		return nil
	}
	var opts []mesonOption
	if json.Unmarshal(b, &opts) != nil {
		return nil
	}
	var out []string
	for _, o := range opts {
		if o.Section != "user" || !isTestOption(o.Name) {
			continue
		}
		switch {
		case o.Type == "boolean" && o.Value == false:
			out = append(out, "-D"+o.Name+"=true")
		case o.Value == "disabled": // a feature option (type "combo" in meson 1.0's file)
			out = append(out, "-D"+o.Name+"=enabled")
		}
	}
	sort.Strings(out)
	return out[:min(len(out), maxTestOptions)]
}
