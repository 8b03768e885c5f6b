package runtime

// The KV pool: every sequence's keys and values live in one set of cache buffers per Model, cut into pages of
// PageSize rows. A sequence holds a list of pages (its cells in position order); pages whose PageSize tokens are
// all computed are entered in a prefix tree keyed by their tokens and the page before them (SGLang's
// RadixAttention at page granularity), so that another sequence with the same prefix — a shared system prompt,
// the same conversation so far, a forked branch — uses them instead of computing them again. A full page is
// never written again, so sharing needs no copy: a sequence that diverges inside a shared page gives it up and
// computes that page's cells again in a page of its own (copy-on-write by recomputation, which is exact because
// a token's keys and values do not depend on what else was in its batch). Pages nobody holds stay in the tree as
// a cache until memory is needed, then the least recently used leaves go first.
//
// The pool is touched only by the engine's loop goroutine.

// PageSize is the number of cache rows (tokens) per page of the KV pool.
const PageSize = 16

// pageKey identifies a full page in the prefix tree: the page before it (-1 at the start of a sequence) and its
// tokens. Keys are comparable arrays, so the tree is one map from key to page.
type pageKey struct {
	parent int32
	toks   [PageSize]int32
}

// page is the state of one page of the pool.
type page struct {
	refs     int32 // sequences holding it
	children int32 // pages in the tree whose parent it is
	inTree   bool
	key      pageKey
	lastUse  uint64 // engine step of the last release, for LRU eviction
}

// kvPool allocates pages and keeps the prefix tree.
type kvPool struct {
	pages []page
	free  []int32 // a stack of free pages
	tree  map[pageKey]int32
	clock uint64
}

func newKVPool(n int) *kvPool {
	p := &kvPool{pages: make([]page, n), free: make([]int32, n), tree: make(map[pageKey]int32, n)}
	for i := range p.free {
		p.free[i] = int32(n - 1 - i) // low pages first
	}
	return p
}

// alloc takes a free page, or evicts the least recently used cached page; -1 when every page is held.
func (p *kvPool) alloc() int32 {
	if len(p.free) == 0 && !p.evict() {
		return -1
	}
	pg := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.pages[pg] = page{refs: 1}
	return pg
}

// available is the number of pages alloc can still give without taking one a sequence holds.
func (p *kvPool) available() int {
	n := len(p.free)
	for i := range p.pages {
		if pg := &p.pages[i]; pg.inTree && pg.refs == 0 {
			n++
		}
	}
	return n
}

// evict frees the least recently used page of the tree that nobody holds and no other page extends.
func (p *kvPool) evict() bool {
	best := int32(-1)
	for i := range p.pages {
		pg := &p.pages[i]
		if pg.inTree && pg.refs == 0 && pg.children == 0 && (best < 0 || pg.lastUse < p.pages[best].lastUse) {
			best = int32(i)
		}
	}
	if best < 0 {
		return false
	}
	p.remove(best)
	p.free = append(p.free, best)
	return true
}

// remove takes page pg (in the tree) out of it.
func (p *kvPool) remove(pg int32) {
	d := &p.pages[pg]
	if !d.inTree {
		panic("runtime: kv pool: removing a page that is not in the prefix tree")
	}
	delete(p.tree, d.key)
	if d.key.parent >= 0 {
		p.pages[d.key.parent].children--
	}
	*d = page{}
}

// release drops one hold of page pg: a page in the tree stays cached, any other is freed.
func (p *kvPool) release(pg int32) {
	d := &p.pages[pg]
	d.refs--
	if d.refs > 0 {
		return
	}
	if d.inTree {
		p.clock++
		d.lastUse = p.clock
		return
	}
	*d = page{}
	p.free = append(p.free, pg)
}

// lookup returns the cached page holding toks after page parent, and takes a hold of it; -1 if there is none.
func (p *kvPool) lookup(parent int32, toks []int32) int32 {
	k := pageKey{parent: parent}
	copy(k.toks[:], toks)
	pg, ok := p.tree[k]
	if !ok {
		return -1
	}
	p.pages[pg].refs++
	return pg
}

// publish enters page pg, now full of toks after page parent, into the tree and returns the page the holder
// should keep: pg itself, or an identical page already there (pg is then released).
func (p *kvPool) publish(pg, parent int32, toks []int32) int32 {
	k := pageKey{parent: parent}
	copy(k.toks[:], toks)
	if old, ok := p.tree[k]; ok {
		p.pages[old].refs++
		p.release(pg)
		return old
	}
	d := &p.pages[pg]
	d.inTree, d.key = true, k
	p.tree[k] = pg
	if parent >= 0 {
		p.pages[parent].children++
	}
	return pg
}

// held is the number of pages some sequence holds.
func (p *kvPool) held() int {
	n := 0
	for i := range p.pages {
		if p.pages[i].refs > 0 {
			n++
		}
	}
	return n
}

// treeHeld is the number of pages in the tree some sequence holds.
func (p *kvPool) treeHeld() int {
	n := 0
	for i := range p.pages {
		if p.pages[i].inTree && p.pages[i].refs > 0 {
			n++
		}
	}
	return n
}

// unpublish takes page pg, which only its holder holds, out of the tree so that the holder may write it again;
// the cached pages that extend it (nobody holds them: a holder of one would hold pg too) are freed.
func (p *kvPool) unpublish(pg int32) {
	p.dropSubtree(pg)
	refs := p.pages[pg].refs
	p.remove(pg)
	p.pages[pg].refs = refs
}

// dropSubtree frees the cached pages that extend page pg, and theirs.
func (p *kvPool) dropSubtree(pg int32) {
	for i := range p.pages {
		if d := &p.pages[i]; d.inTree && d.key.parent == pg {
			p.dropSubtree(int32(i))
			p.remove(int32(i))
			p.free = append(p.free, int32(i))
		}
	}
}
