package analysis

import (
	"sync"

	"github.com/triage-dev/triage/internal/excerpt"
)

// excerptCache keeps the excerpts of recent outputs so that a cache hit
// costs no store read. Outputs are immutable once stored.
type excerptCache struct {
	mu    sync.Mutex
	max   int
	items map[string]excerpt.Excerpt
	order []string
}

func newExcerptCache(max int) *excerptCache {
	return &excerptCache{max: max, items: map[string]excerpt.Excerpt{}}
}

func (c *excerptCache) get(id string) (excerpt.Excerpt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[id]
	return e, ok
}

func (c *excerptCache) put(id string, e excerpt.Excerpt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[id]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	c.items[id] = e
	c.order = append(c.order, id)
}
