package daemon

import (
	"context"
	"sync"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/webui"
)

// uiState is the daemon's local web UI (package webui), built on first
// use; it listens only between a control client's ui request and
// webui.DefaultIdleTimeout without a request.
type uiState struct {
	mu  sync.Mutex
	srv *webui.Server
}

// server is the UI server, nil before the first ui request.
func (u *uiState) server() *webui.Server {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.srv
}

// webUI is the daemon's UI server; its engine calls wait for the memory
// as tool calls do (Runtime.memoryFor).
func (d *Daemon) webUI() *webui.Server {
	d.ui.mu.Lock()
	defer d.ui.mu.Unlock()
	if d.ui.srv == nil {
		d.ui.srv = webui.New(webui.Options{Memory: d.rt.memoryFor, Logger: d.log, Redact: d.rt.redact, Version: d.opts.Version})
	}
	return d.ui.srv
}

// OpenUI implements control.UIHandler: it starts the UI when it is not
// listening and returns a URL that opens it once.
func (h controlHandler) OpenUI(ctx context.Context) (*control.UIInfo, error) {
	d := h.d
	d.mu.Lock()
	stopping := d.stopping
	d.mu.Unlock()
	if stopping {
		return nil, ErrStopped
	}
	srv := d.webUI()
	url, err := srv.Open()
	if err != nil {
		return nil, err
	}
	return &control.UIInfo{URL: url, Addr: srv.Addr(), IdleTimeout: webui.DefaultIdleTimeout}, nil
}

// uiStatus says whether the UI listens, for status.
func (d *Daemon) uiStatus() *control.UIStatus {
	srv := d.ui.server()
	if srv == nil {
		return &control.UIStatus{}
	}
	return &control.UIStatus{Addr: srv.Addr()}
}

// closeUI stops the UI's listener; shutdown calls it once no control
// request can open it again.
func (d *Daemon) closeUI() {
	if srv := d.ui.server(); srv != nil {
		if err := srv.Close(); err != nil {
			d.log.Warn("the UI did not close cleanly", "err", err)
		}
	}
}
