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
// A model with sliding-window layers keeps those layers' cells in a pool of their own (swaPages pages, one per
// page of the main pool that still has them): a sequence holds a page's window cells only while its next token
// can see them, and they are freed once no holder needs them (llama.cpp's SWA cache), so those layers keep
// little more than the window per sequence. A cached page whose window cells are gone still serves as a prefix,
// except for the pages within the window of where the sequence goes on, which are computed again.
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
	swa      int32  // its page of the sliding-window pool + 1 (0: none)
	swaRefs  int32  // holders that keep its sliding-window cells
}

// kvPool allocates pages and keeps the prefix tree.
type kvPool struct {
	pages []page
	free  []int32 // a stack of free pages
	tree  map[pageKey]int32
	clock uint64

	swaPages int     // pages of the sliding-window pool (0: no such pool)
	swaFree  []int32 // a stack of its free pages
}

// newKVPool makes a pool of n pages and, with swa > 0, a sliding-window pool of swa pages.
func newKVPool(n, swa int) *kvPool {
	p := &kvPool{pages: make([]page, n), free: make([]int32, n), tree: make(map[pageKey]int32, n), swaPages: swa,
		swaFree: make([]int32, swa)}
	for i := range p.free {
		p.free[i] = int32(n - 1 - i) // low pages first
	}
	for i := range p.swaFree {
		p.swaFree[i] = int32(swa - 1 - i)
	}
	return p
}

// alloc takes a free page, or evicts the least recently used cached page, with a page of the sliding-window
// pool if there is one; -1 when every page is held.
func (p *kvPool) alloc() int32 {
	if p.swaPages > 0 && len(p.swaFree) == 0 || len(p.free) == 0 && !p.evict() {
		return -1
	}
	pg := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.pages[pg] = page{refs: 1}
	if p.swaPages > 0 {
		p.pages[pg].swa = p.swaFree[len(p.swaFree)-1] + 1
		p.swaFree = p.swaFree[:len(p.swaFree)-1]
	}
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
	if p.swaPages > 0 {
		n = min(n, len(p.swaFree))
	}
	return n
}

// swaOf returns the sliding-window page of page pg, -1 if it has none.
func (p *kvPool) swaOf(pg int32) int32 { return p.pages[pg].swa - 1 }

// holdSWA takes a hold of page pg's sliding-window cells; false if they are gone.
func (p *kvPool) holdSWA(pg int32) bool {
	d := &p.pages[pg]
	if d.swa == 0 {
		return false
	}
	d.swaRefs++
	return true
}

// dropSWA drops a hold of page pg's sliding-window cells, which are freed when nobody holds them.
func (p *kvPool) dropSWA(pg int32) {
	d := &p.pages[pg]
	if d.swaRefs--; d.swaRefs == 0 {
		p.freeSWA(pg)
	}
}

// freeSWA frees page pg's sliding-window page, if it has one.
func (p *kvPool) freeSWA(pg int32) {
	d := &p.pages[pg]
	if d.swa > 0 {
		p.swaFree = append(p.swaFree, d.swa-1)
	}
	d.swa, d.swaRefs = 0, 0
}

// swaHeld is the number of sliding-window pages in use.
func (p *kvPool) swaHeld() int { return p.swaPages - len(p.swaFree) }

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
	p.freeSWA(best)
	p.free = append(p.free, best)
	return true
}

// remove takes page pg (in the tree) out of it; its sliding-window cells stay.
func (p *kvPool) remove(pg int32) {
	d := &p.pages[pg]
	if !d.inTree {
		panic("runtime: kv pool: removing a page that is not in the prefix tree")
	}
	delete(p.tree, d.key)
	if d.key.parent >= 0 {
		p.pages[d.key.parent].children--
	}
	*d = page{swa: d.swa, swaRefs: d.swaRefs}
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
	p.freeSWA(pg)
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
// should keep: pg itself, or an identical page already there (pg is then released). The holder's hold of pg's
// sliding-window cells moves with it: to the old page's, or, where the old page has lost its cells, pg's cells
// (the same bits) become the old page's.
func (p *kvPool) publish(pg, parent int32, toks []int32) int32 {
	k := pageKey{parent: parent}
	copy(k.toks[:], toks)
	if old, ok := p.tree[k]; ok {
		o, d := &p.pages[old], &p.pages[pg]
		o.refs++
		if d.swa > 0 {
			if o.swa == 0 {
				o.swa, d.swa = d.swa, 0
			}
			o.swaRefs += d.swaRefs
			d.swaRefs = 0
		}
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
			p.freeSWA(int32(i))
			p.free = append(p.free, int32(i))
		}
	}
}
