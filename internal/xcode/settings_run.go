package xcode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// BuildSettings runs `xcodebuild -showBuildSettings -json` for r.
func BuildSettings(ctx context.Context, r Request) ([]TargetSettings, error) {
	cmd, err := ShowBuildSettingsCommand(r)
	if err != nil {
		return nil, err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return nil, err
	}
	return ParseBuildSettings(out)
}

// CheckScheme lists the container's schemes (`xcodebuild -list -json`) and
// returns an *SchemeError naming them when scheme is not one.
//
// Every build and test checks its scheme first, and -list takes seconds
// on a large workspace, so lists are cached per container for the life of
// the process (the server's), keyed by the modification times of what a
// scheme change touches. Only a found scheme is taken from the cache: a
// scheme it lacks is looked for again (one added where no stamp sees it,
// such as a project inside a workspace), so a stale list never refuses a
// real scheme.
func CheckScheme(ctx context.Context, workspace, project, scheme string) error {
	key, stamp := containerStamp(workspace, project)
	if l := schemeLists.get(key, stamp); l != nil && l.CheckScheme(scheme) == nil {
		return nil
	}
	l, err := ListSchemes(ctx, workspace, project)
	if err != nil {
		return fmt.Errorf("listing schemes: %w", err)
	}
	return l.CheckScheme(scheme)
}

// ListSchemes runs `xcodebuild -list -json` (never from the cache) and
// caches what it says for CheckScheme.
func ListSchemes(ctx context.Context, workspace, project string) (*List, error) {
	cmd, err := ListCommand(workspace, project)
	if err != nil {
		return nil, err
	}
	key, stamp := containerStamp(workspace, project)
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return nil, err
	}
	l, err := ParseList(out)
	if err != nil {
		return nil, err
	}
	schemeLists.put(key, stamp, l)
	return l, nil
}

// schemeLists caches scheme lists by container.
var schemeLists = &listCache{m: map[string]cachedList{}}

// maxCachedLists bounds the cache; past it, the cache starts afresh.
const maxCachedLists = 64

type listCache struct {
	mu sync.Mutex
	m  map[string]cachedList
}

type cachedList struct {
	stamp string
	list  *List
}

func (c *listCache) get(key, stamp string) *List {
	if key == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.stamp == stamp {
		return e.list
	}
	return nil
}

func (c *listCache) put(key, stamp string, l *List) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedLists {
		clear(c.m)
	}
	c.m[key] = cachedList{stamp, l}
}

// containerStamp returns a container's absolute path and the modification
// times of the bundle and of what changes with its schemes and targets
// (project.pbxproj, contents.xcworkspacedata, the shared and user scheme
// directories); "" for a container that cannot be read, which is never
// cached.
func containerStamp(workspace, project string) (key, stamp string) {
	p := workspace
	if p == "" {
		p = project
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", ""
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", fi.ModTime().UnixNano())
	for _, rel := range []string{"project.pbxproj", "contents.xcworkspacedata", "xcshareddata/xcschemes", "xcuserdata"} {
		if fi, err := os.Stat(filepath.Join(abs, rel)); err == nil {
			fmt.Fprintf(&b, " %s=%d", rel, fi.ModTime().UnixNano())
		}
	}
	return abs, b.String()
}

// ChosenSettings are one target's values of the settings asked for.
type ChosenSettings struct {
	Target  string
	Keys    []string // the keys set, in the order asked
	Values  map[string]string
	Missing []string // the keys not set, sorted
}

// DefaultSettingKeys locate and identify a product.
var DefaultSettingKeys = []string{"PRODUCT_BUNDLE_IDENTIFIER", "TARGET_BUILD_DIR", "FULL_PRODUCT_NAME", "EXECUTABLE_PATH", "PLATFORM_NAME", "SDKROOT", "CONFIGURATION"}

// SchemeSettings checks r's scheme, then reads its build settings: keys of
// each target's (DefaultSettingKeys when none), and the products.
func SchemeSettings(ctx context.Context, r Request, keys []string) ([]ChosenSettings, []Product, error) {
	if err := CheckScheme(ctx, r.Workspace, r.Project, r.Scheme); err != nil {
		return nil, nil, err
	}
	ts, err := BuildSettings(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	if len(keys) == 0 {
		keys = DefaultSettingKeys
	}
	chosen := make([]ChosenSettings, len(ts))
	for i, t := range ts {
		chosen[i] = choose(t, keys)
	}
	return chosen, Products(ts), nil
}

func choose(t TargetSettings, keys []string) ChosenSettings {
	c := ChosenSettings{Target: t.Target, Values: map[string]string{}}
	for _, k := range keys {
		if v, ok := t.BuildSettings[k]; ok {
			c.Keys, c.Values[k] = append(c.Keys, k), v
		} else {
			c.Missing = append(c.Missing, k)
		}
	}
	slices.Sort(c.Missing)
	return c
}
