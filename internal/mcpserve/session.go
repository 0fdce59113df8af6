// Package mcpserve owns serving MCP over one byte stream: newline-delimited
// JSON-RPC in both directions, with a session of its own. infmem runs it on
// stdio (in-process mode) and on every connection to the daemon's socket,
// so each client gets its own session and its own active scope.
//
// mcp-go's StdioServer keeps one global session per process and so cannot
// serve several connections; this package registers a session per stream
// and feeds lines to MCPServer.HandleMessage itself.
package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Session is one client's MCP session.
type Session struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool

	mu          sync.Mutex
	logLevel    mcp.LoggingLevel
	clientInfo  mcp.Implementation
	clientCaps  mcp.ClientCapabilities
	activeScope string

	// send writes one message to the client; set by Serve.
	send func(v any) error

	reqMu   sync.Mutex
	nextID  int64
	pending map[string]chan json.RawMessage
}

var (
	_ server.ClientSession         = (*Session)(nil)
	_ server.SessionWithLogging    = (*Session)(nil)
	_ server.SessionWithClientInfo = (*Session)(nil)
	_ server.SessionWithSampling   = (*Session)(nil)
)

func newSession() *Session {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &Session{
		id:            "infmem-" + hex.EncodeToString(b),
		notifications: make(chan mcp.JSONRPCNotification, 64),
		logLevel:      mcp.LoggingLevelError,
		pending:       map[string]chan json.RawMessage{},
	}
}

// SessionID implements server.ClientSession.
func (s *Session) SessionID() string { return s.id }

// NotificationChannel implements server.ClientSession.
func (s *Session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

// Initialize implements server.ClientSession.
func (s *Session) Initialize() { s.initialized.Store(true) }

// Initialized implements server.ClientSession.
func (s *Session) Initialized() bool { return s.initialized.Load() }

// SetLogLevel implements server.SessionWithLogging.
func (s *Session) SetLogLevel(l mcp.LoggingLevel) { s.mu.Lock(); s.logLevel = l; s.mu.Unlock() }

// GetLogLevel implements server.SessionWithLogging.
func (s *Session) GetLogLevel() mcp.LoggingLevel { s.mu.Lock(); defer s.mu.Unlock(); return s.logLevel }

// GetClientInfo implements server.SessionWithClientInfo.
func (s *Session) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

// SetClientInfo implements server.SessionWithClientInfo.
func (s *Session) SetClientInfo(i mcp.Implementation) { s.mu.Lock(); s.clientInfo = i; s.mu.Unlock() }

// GetClientCapabilities implements server.SessionWithClientInfo.
func (s *Session) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

// SetClientCapabilities implements server.SessionWithClientInfo.
func (s *Session) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	s.clientCaps = c
	s.mu.Unlock()
}

// ActiveScope is the scope this session works in ("" for none).
func (s *Session) ActiveScope() string { s.mu.Lock(); defer s.mu.Unlock(); return s.activeScope }

// SetActiveScope changes the session's scope.
func (s *Session) SetActiveScope(name string) { s.mu.Lock(); s.activeScope = name; s.mu.Unlock() }

// SupportsSampling reports whether the client advertised sampling.
func (s *Session) SupportsSampling() bool {
	return s.GetClientCapabilities().Sampling != nil
}

// ErrNoSampling means the client did not advertise sampling.
var ErrNoSampling = errors.New("the client does not support sampling")

// RequestSampling asks the client's model for a completion
// (server.SessionWithSampling).
func (s *Session) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if !s.SupportsSampling() {
		return nil, ErrNoSampling
	}
	raw, err := s.request(ctx, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams)
	if err != nil {
		return nil, err
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("cannot read the client's sampling result: %w", err)
	}
	// The content arrives as a plain map; give callers the typed content.
	if m, ok := res.Content.(map[string]any); ok {
		c, err := mcp.ParseContent(m)
		if err != nil {
			return nil, fmt.Errorf("cannot read the client's sampling result: %w", err)
		}
		res.Content = c
	}
	return &res, nil
}

// request sends a JSON-RPC request to the client and waits for its response.
func (s *Session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if s.send == nil {
		return nil, errors.New("session is not connected")
	}
	s.reqMu.Lock()
	s.nextID++
	id := fmt.Sprintf("infmem-req-%d", s.nextID)
	ch := make(chan json.RawMessage, 1)
	s.pending[id] = ch
	s.reqMu.Unlock()
	defer func() {
		s.reqMu.Lock()
		delete(s.pending, id)
		s.reqMu.Unlock()
	}()
	msg := map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "method": method, "params": params}
	if err := s.send(msg); err != nil {
		return nil, err
	}
	select {
	case raw := <-ch:
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("cannot read the client's response: %w", err)
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("client refused %s: %s (code %d)", method, resp.Error.Message, resp.Error.Code)
		}
		return resp.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver routes a response from the client to the request waiting for it.
func (s *Session) deliver(id string, raw json.RawMessage) bool {
	s.reqMu.Lock()
	ch, ok := s.pending[id]
	s.reqMu.Unlock()
	if ok {
		ch <- raw
	}
	return ok
}
