package defaults

import (
	"fmt"
	"sort"
	"sync"
)

// DefaultProfile is the profile used until another is chosen.
const DefaultProfile = "default"

// ValidProfile returns an error unless name can name a profile: 1 to 64
// letters, digits, '.', '_' or '-', starting with a letter or digit.
func ValidProfile(name string) error {
	ok := len(name) > 0 && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		ok = alnum || (i > 0 && (c == '.' || c == '_' || c == '-'))
	}
	if !ok {
		return fmt.Errorf("invalid profile name %q: use letters, digits, '.', '_' or '-' (at most 64)", name)
	}
	return nil
}

// Store holds the profiles of one server process. The zero value is not usable;
// call NewStore.
type Store struct {
	mu       sync.Mutex
	profiles map[string]Values // guarded by mu
	active   string            // guarded by mu
}

// NewStore returns a store seeded with the given profiles (which it copies) and
// active profile ("" means DefaultProfile).
func NewStore(profiles map[string]Values, active string) (*Store, error) {
	if active == "" {
		active = DefaultProfile
	}
	if err := ValidProfile(active); err != nil {
		return nil, err
	}
	s := &Store{profiles: make(map[string]Values), active: active}
	for name, v := range profiles {
		if err := ValidProfile(name); err != nil {
			return nil, err
		}
		s.profiles[name] = Values{}.overlay(v)
	}
	return s, nil
}

// Active returns the name of the active profile.
func (s *Store) Active() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// Profiles returns the names of the profiles that hold values, and the active
// one, sorted.
func (s *Store) Profiles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{s.active: true}
	for name, v := range s.profiles {
		if !v.IsZero() {
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the values of profile ("" means the active one).
func (s *Store) Get(profile string) Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Values{}.overlay(s.profiles[s.resolve(profile)])
}

// Set overlays v on profile ("" means the active one) and returns the result.
// Fields of exclusive pairs replace each other: setting simulator_id clears
// simulator_name in that profile. A result over the env's bounds
// (MaxEnvKeys) is refused and the profile left as it was.
func (s *Store) Set(profile string, v Values) (Values, error) {
	if profile != "" {
		if err := ValidProfile(profile); err != nil {
			return Values{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.resolve(profile)
	cur := s.profiles[name].Map()
	for _, pair := range ExclusivePairs {
		set := v.Map()
		if _, ok := set[pair[0]]; ok {
			delete(cur, pair[1])
		}
		if _, ok := set[pair[1]]; ok {
			delete(cur, pair[0])
		}
	}
	var base Values
	if err := fromMap(cur, &base); err != nil {
		return Values{}, err
	}
	merged := base.overlay(v)
	// Each call may be within the bounds and their sum not.
	if err := merged.checkBounds("profile " + name + " with them"); err != nil {
		return Values{}, err
	}
	s.profiles[name] = merged
	return Values{}.overlay(merged), nil
}

// Clear removes the named keys from profile ("" means the active one), or every
// key when keys is empty, and returns what remains.
func (s *Store) Clear(profile string, keys []string) (Values, error) {
	if err := CheckKeys(keys); err != nil {
		return Values{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.resolve(profile)
	if len(keys) == 0 {
		delete(s.profiles, name)
		return Values{}, nil
	}
	m := s.profiles[name].Map()
	for _, k := range keys {
		delete(m, k)
	}
	var v Values
	if err := fromMap(m, &v); err != nil {
		return Values{}, err
	}
	s.profiles[name] = v
	return Values{}.overlay(v), nil
}

// Use makes profile the active one, creating it empty if needed.
func (s *Store) Use(profile string) error {
	if err := ValidProfile(profile); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = profile
	return nil
}

func (s *Store) resolve(profile string) string {
	if profile == "" {
		return s.active
	}
	return profile
}
