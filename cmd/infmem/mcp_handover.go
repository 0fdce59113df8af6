package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/bridge"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/mcpserve"
)

// dialRunningDaemon connects to the MCP socket of a daemon that already
// serves the data root, without starting one, or returns nil. It is used
// when the configuration does not load: the data root is then resolved
// as setup would (--data-dir, $INFMEM_DATA_DIR, else the file's data_dir
// if that much of it reads, else the OS default).
func dialRunningDaemon(ctx context.Context, c commonFlags, env *cliEnv) net.Conn {
	var cfgDir string
	if src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir); err == nil && src.Path != "" {
		if b, err := os.ReadFile(src.Path); err == nil {
			var v struct {
				DataDir string `json:"data_dir"`
			}
			if json.Unmarshal(b, &v) == nil {
				cfgDir = v.DataDir
			}
		}
	}
	dir, _, err := dataroot.Resolve(c.dataDir, env.getenv, cfgDir)
	if err != nil {
		return nil
	}
	ep, err := control.EndpointsFor(dataroot.Root{Dir: dir})
	if err != nil {
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := bridge.Dial(dctx, ep.MCP)
	if err != nil {
		return nil
	}
	return conn
}

// mcpRecheck looks again at what kept infmem from serving: it returns a
// connection to the daemon (started if needed) once infmem can serve, else
// the problem as it is now. With --in-process it only says whether the
// problem is gone (nil, nil): that session cannot switch over.
func mcpRecheck(ctx context.Context, opts mcpOptions, env *cliEnv) (net.Conn, *mcpProblem) {
	quiet := &cliEnv{stdin: env.stdin, stdout: io.Discard, stderr: io.Discard, getenv: env.getenv}
	s, p := mcpPreflight(opts.common, quiet)
	if opts.inProcess {
		return nil, p
	}
	if p != nil {
		if conn := dialRunningDaemon(ctx, opts.common, quiet); conn != nil {
			return conn, nil
		}
		return nil, p
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return nil, &mcpProblem{err: err, what: err.Error(), fix: "choose a data root with a shorter path with --data-dir or $INFMEM_DATA_DIR"}
	}
	s.log = newLogger(env.stderr, "info")
	return connectDaemon(ctx, s, ep, opts.wait)
}

// handoverID is the id of the initialize request the bridge replays to the
// daemon when a session switches over; its answer is not forwarded.
const handoverID = `"infmem-handover"`

// relayUntilAvailable serves the MCP session on stdio from srv (the
// server that explains why infmem cannot work) until infmem can serve:
// before each request that needs the memory (a tool call, a prompt, a
// resource), available looks again, and once it returns a connection to
// the daemon the session is handed over: the client's initialize is
// replayed to the daemon (its answer dropped: the client has one), the
// request is sent on, and from then on stdio is piped to the daemon as
// the bridge always does. The client sees one session that starts working.
func relayUntilAvailable(ctx context.Context, env *cliEnv, srv *server.MCPServer, log *slog.Logger, available func() (net.Conn, bool)) error {
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := mcpserve.Serve(ctx, srv, pr, env.stdout, mcpserve.Options{Logger: log})
		// Nothing reads any more: writes to pw fail instead of blocking.
		pr.CloseWithError(io.ErrClosedPipe)
		served <- err
	}()
	finish := func() error {
		pw.Close()
		return <-served
	}
	br := bufio.NewReaderSize(env.stdin, 64<<10)
	var initReq []byte
	initialized := false
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer is passed on unread.
			for errors.Is(err, bufio.ErrBufferFull) {
				if _, werr := pw.Write(chunk); werr != nil {
					return finish()
				}
				chunk, err = br.ReadSlice('\n')
			}
			if _, werr := pw.Write(chunk); werr != nil {
				return finish()
			}
		} else if len(chunk) > 0 {
			line := bytes.Clone(chunk)
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(bytes.TrimSpace(line), &m)
			switch m.Method {
			case "initialize":
				initReq = bytes.TrimSpace(line)
			case "notifications/initialized":
				initialized = true
			case "tools/call", "prompts/get", "resources/read":
				if conn, ok := available(); ok {
					dc, herr := replayInitialize(conn, initReq, initialized)
					if herr == nil {
						if serr := finish(); serr != nil {
							log.Warn("the stand-in MCP server ended with an error", "err", serr)
						}
						fmt.Fprintln(env.stderr, "infmem: the problem is gone; this session goes on through the infmem daemon")
						if !bytes.HasSuffix(line, []byte("\n")) {
							line = append(line, '\n')
						}
						if _, werr := dc.Write(line); werr != nil {
							dc.Close()
							return fmt.Errorf("%w: %v", bridge.ErrDaemonGone, werr)
						}
						return pipeToDaemon(ctx, dc, br, env.stdout, "")
					}
					conn.Close()
					fmt.Fprintf(env.stderr, "infmem: the infmem daemon did not take over the session: %v\n", herr)
				}
			}
			if _, werr := pw.Write(line); werr != nil {
				return finish()
			}
		}
		if err != nil {
			return finish()
		}
	}
}

// replayInitialize sends the client's initialize (and initialized, when the
// client sent it) to the daemon, and waits, bounded, for its answer,
// which is dropped. The connection returned reads on after that answer.
func replayInitialize(conn net.Conn, initReq []byte, initialized bool) (net.Conn, error) {
	if initReq == nil {
		return conn, nil
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(initReq, &req); err != nil {
		return nil, fmt.Errorf("the client's initialize request does not read: %w", err)
	}
	req["id"] = json.RawMessage(handoverID)
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("no answer to initialize: %w", err)
		}
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &resp) != nil || string(resp.ID) != handoverID {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("initialize refused: %s", resp.Error.Message)
		}
		break
	}
	if initialized {
		if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
			return nil, err
		}
	}
	conn.SetDeadline(time.Time{})
	return bufferedConn{Conn: conn, r: r}, nil
}

// bufferedConn reads what its reader has buffered before the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
