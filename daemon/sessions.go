package daemon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/mcptools"
)

// Sessions are the MCP sessions connected now. Maintenance uses them to
// ask a connected client's model for summaries (MCP sampling) when one
// offers it.
type Sessions struct {
	mu   sync.Mutex
	list []*mcpserve.Session
}

func (s *Sessions) add(sess *mcpserve.Session) {
	s.mu.Lock()
	s.list = append(s.list, sess)
	s.mu.Unlock()
}

func (s *Sessions) remove(sess *mcpserve.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.list {
		if x == sess {
			s.list = append(s.list[:i], s.list[i+1:]...)
			return
		}
	}
}

// sampler returns a connected session that supports sampling, if any.
func (s *Sessions) sampler() *mcpserve.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.list) - 1; i >= 0; i-- {
		if s.list[i].SupportsSampling() {
			return s.list[i]
		}
	}
	return nil
}

// SupportsSampling reports whether a connected client offers sampling.
func (s *Sessions) SupportsSampling() bool { return s.sampler() != nil }

// ErrNoSampler means no connected client offers sampling.
var ErrNoSampler = errors.New("no connected client offers sampling")

// RequestSampling asks the most recently connected client that offers
// sampling for a completion.
func (s *Sessions) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	sess := s.sampler()
	if sess == nil {
		return nil, ErrNoSampler
	}
	return sess.RequestSampling(ctx, req)
}

// GetClientInfo names the client sampling goes to.
func (s *Sessions) GetClientInfo() mcp.Implementation {
	if sess := s.sampler(); sess != nil {
		return sess.GetClientInfo()
	}
	return mcp.Implementation{}
}

// MaxConcurrentCalls bounds the MCP requests one runtime runs at once,
// whatever the number of sessions: each session runs at most 8, and
// together they queue for these slots, so a crowd of clients cannot take
// every core.
const MaxConcurrentCalls = 16

// Serve serves one MCP session over r and w on this runtime's server,
// keeping it in the runtime's sessions while it lasts.
func (r *Runtime) Serve(ctx context.Context, rd io.Reader, w io.Writer, opts mcpserve.Options) error {
	if opts.Shared == nil {
		opts.Shared = r.calls
	}
	if opts.Beside == nil {
		opts.Beside = mcptools.RunsBeside
	}
	if opts.OnLine == nil {
		opts.OnLine = expectEmbedding
	}
	var sess *mcpserve.Session
	on := opts.OnSession
	opts.OnSession = func(s *mcpserve.Session) {
		sess = s
		r.sessions.add(s)
		if on != nil {
			on(s)
		}
	}
	err := mcpserve.Serve(ctx, r.srv, rd, w, opts)
	if sess != nil {
		r.sessions.remove(sess)
	}
	return err
}

// retrieveCall marks a line that (most likely) calls retrieve_memory.
var retrieveCall = []byte(`"retrieve_memory"`)

// expectEmbedding wakes the embedding's workers when a retrieve_memory
// call is read, so that their wake-up overlaps the call's decode and
// dispatch instead of its query's first product (embed.Expect): at 100k
// the query's pass took 1.10 ms instead of 1.26 (p50), the call 0.17 ms
// less, for ~0.25 ms of CPU a call. Stores gained nothing end to end (their
// pass 0.26 ms shorter, but the worker's polling took the second core
// from the database write beside the embedding), so they do not wake it.
// Only a hint: a line that merely mentions the tool wakes the workers for
// nothing, and nothing a call returns depends on it.
func expectEmbedding(line []byte) {
	if bytes.Contains(line, retrieveCall) {
		embed.Expect()
	}
}
