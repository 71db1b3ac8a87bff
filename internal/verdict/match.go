package verdict

import (
	"slices"

	"github.com/triage-dev/triage/internal/bigram"
)

// matcher finds which of many literal keys occur in a line in one pass
// (Aho–Corasick, compiled to a DFA). Output lines are scanned byte by byte
// exactly once whatever the number of patterns, which is what lets the
// Scanner keep up with a child writing a gigabyte.
//
// To keep the transition table small, bytes are mapped to classes: each
// byte that occurs in some key has its own class, all others share class 0.
// The table is states × classes int32s, a few hundred KiB for the packs.
type matcher struct {
	class  [256]uint8
	nclass int
	// delta[row+class] is the row of the next state, where a state's row is
	// its index times nclass (saving a multiply per byte), negated when a
	// key ends at that state (saving a second lookup per byte). The root's
	// row is 0 and no key is empty, so the sign is unambiguous.
	delta []int32
	out   [][]int // out[state]: keys ending at that state, following failure links
	// pre passes only the lines that may hold a key; most lines hold none,
	// and it rules them out several times faster than the automaton's
	// dependent step per byte.
	pre *bigram.Filter
}

func newMatcher(keys []string) *matcher {
	m := &matcher{nclass: 1, pre: bigram.New(keys)}
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if m.class[k[i]] == 0 {
				m.class[k[i]] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	nodes := m.trie(keys)
	m.link(nodes)
	m.delta = make([]int32, len(nodes)*m.nclass)
	for s, n := range nodes {
		row := s * m.nclass
		for c, t := range n.next {
			next := t * int32(m.nclass)
			if len(m.out[t]) > 0 {
				next = -next
			}
			m.delta[row+c] = next
		}
	}
	return m
}

// trieNode is a state of the automaton while it is built: its goto edges
// by byte class, -1 for none yet.
type trieNode struct{ next []int32 }

// trie builds the keys' trie (goto edges only) and records in m.out which
// key ends at each state.
func (m *matcher) trie(keys []string) []trieNode {
	newNode := func() trieNode {
		n := trieNode{next: make([]int32, m.nclass)}
		for i := range n.next {
			n.next[i] = -1
		}
		return n
	}
	nodes := []trieNode{newNode()}
	m.out = [][]int{nil}
	for ki, k := range keys {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := m.class[k[i]]
			if nodes[s].next[c] < 0 {
				nodes = append(nodes, newNode())
				m.out = append(m.out, nil)
				nodes[s].next[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].next[c]
		}
		m.out[s] = append(m.out[s], ki)
	}
	return nodes
}

// link completes the transitions with failure links, breadth-first, so that
// every (state, class) pair has a defined successor, and gives each state
// the keys of its failure chain.
func (m *matcher) link(nodes []trieNode) {
	fail := make([]int32, len(nodes))
	queue := make([]int32, 0, len(nodes))
	for c := 0; c < m.nclass; c++ {
		if t := nodes[0].next[c]; t > 0 {
			queue = append(queue, t)
		} else {
			nodes[0].next[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for c := 0; c < m.nclass; c++ {
			t := nodes[s].next[c]
			if t < 0 {
				nodes[s].next[c] = nodes[fail[s]].next[c]
				continue
			}
			fail[t] = nodes[fail[s]].next[c]
			queue = append(queue, t)
		}
	}
}

// scan appends to hits the keys found in line, each once, and returns it.
func (m *matcher) scan(line []byte, hits []int) []int {
	if !m.pre.Maybe(line) {
		return hits
	}
	return m.run(line, hits)
}

// run is scan without the prefilter: the automaton over every byte.
func (m *matcher) run(line []byte, hits []int) []int {
	delta, class := m.delta, &m.class
	row := int32(0)
	for _, b := range line {
		row = delta[row+int32(class[b])]
		if row < 0 {
			row = -row
			for _, k := range m.out[int(row)/m.nclass] {
				if !slices.Contains(hits, k) {
					hits = append(hits, k)
				}
			}
		}
	}
	return hits
}
