package server

import (
	"container/list"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSessionHeader is the streamable HTTP transport's session header.
const mcpSessionHeader = "Mcp-Session-Id"

// mcpSessionCap bounds the live sessions of a streamable HTTP handler.
// Every request naming a session marks it used; a request opening a new
// one (no session header) first closes the least recently used sessions
// beyond the cap. Sessions the SDK closed itself (idle timeout, DELETE)
// are dropped from the count as they are found.
type mcpSessionCap struct {
	next   http.Handler
	server *mcp.Server
	svc    *Service
	max    int

	mu  sync.Mutex
	lru *list.List // front: most recently used; values are session ids
	m   map[string]*list.Element
}

func newMCPSessionCap(next http.Handler, s *mcp.Server, svc *Service, max int) *mcpSessionCap {
	return &mcpSessionCap{next: next, server: s, svc: svc, max: max, lru: list.New(), m: map[string]*list.Element{}}
}

func (c *mcpSessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(mcpSessionHeader)
	if id != "" {
		c.touch(id)
		c.next.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodPost {
		c.makeRoom()
	}
	c.next.ServeHTTP(w, r)
	if nid := w.Header().Get(mcpSessionHeader); nid != "" {
		c.touch(nid)
	}
}

// touch marks a live session used.
func (c *mcpSessionCap) touch(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[id]; ok {
		c.lru.MoveToFront(e)
		return
	}
	if c.live()[id] {
		c.m[id] = c.lru.PushFront(id)
	}
}

// live lists the server's open sessions.
func (c *mcpSessionCap) live() map[string]bool {
	out := map[string]bool{}
	for ss := range c.server.Sessions() {
		if id := ss.ID(); id != "" {
			out[id] = true
		}
	}
	return out
}

// makeRoom closes least recently used sessions until a new one fits.
func (c *mcpSessionCap) makeRoom() {
	c.mu.Lock()
	if c.lru.Len() < c.max {
		c.mu.Unlock()
		return
	}
	live := c.live()
	for e := c.lru.Back(); e != nil; {
		prev := e.Prev()
		if id := e.Value.(string); !live[id] {
			c.lru.Remove(e)
			delete(c.m, id)
		}
		e = prev
	}
	var evict []string
	for c.lru.Len() >= c.max {
		e := c.lru.Back()
		id := e.Value.(string)
		c.lru.Remove(e)
		delete(c.m, id)
		evict = append(evict, id)
	}
	c.mu.Unlock()
	if len(evict) == 0 {
		return
	}
	gone := map[string]bool{}
	for _, id := range evict {
		gone[id] = true
	}
	for ss := range c.server.Sessions() {
		if gone[ss.ID()] {
			ss.Close()
		}
	}
	if c.svc != nil {
		for _, id := range evict {
			c.svc.sessions.Forget(id)
		}
	}
}

// Len is the number of sessions counted against the cap.
func (c *mcpSessionCap) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
