// Package webui owns infmem's local page: a web UI to see, search and fix
// the memory in a browser, served by the daemon only while someone uses it.
//
// The page is three hand-written files embedded in the binary (static/:
// index.html, app.js, app.css) and a JSON API under /api/. Every read and
// every write goes to the memory engine through the same calls the MCP
// tools make (Engine.Search as retrieve_memory ranks, Engine.Update,
// Engine.Forget, Engine.Unforget, Engine.UpdateProfile, …), through the
// runtime's one wait for the memory (Options.Memory): there is no second
// write path. The maintenance view's Undo reads the change from the
// audit trail again and undoes it through Engine.UndoMerge or
// Engine.Unarchive; "Run now" and "Back up now" run the daemon's own jobs
// (Options.Maintain, Options.Backup) as tasks the page polls; the backups
// view shows the identity file's path, never a key.
//
// How it is served (docs/UI.md says why each one matters):
//
//   - on a loopback address (Linux: a random 127.x.y.z, so the cookie has
//     a host of its own; elsewhere 127.0.0.1) and a port the system
//     picks, never on another interface; connections from another user's
//     processes are closed at once (Linux: /proc/net/tcp); the listener
//     starts when `infmem ui` asks for it (Server.OpenLaunch) and closes
//     after IdleTimeout without a request of a session;
//   - the browser is opened on a private launch file (Options.LaunchDir)
//     that leads to the link, never on the link: command lines are
//     readable by every user;
//   - each Open makes a launch secret that travels in the URL once: the
//     first request that shows it gets a session cookie (HttpOnly,
//     SameSite=Strict) and is redirected to the bare page, and the secret
//     is spent; nothing else of the UI answers without that cookie;
//   - the Host header must name the listener itself and an Origin, when a
//     browser sends one, must be the page's own (DNS rebinding, other
//     sites); cross-site fetch metadata is refused;
//   - every write needs the session's CSRF token in a header, a JSON body
//     and the page's own Origin;
//   - responses carry a strict Content-Security-Policy (scripts, styles and
//     connections to the page's own origin only; no inline code, no
//     framing) and no third-party asset is ever loaded.
//
// Secrets (launch secrets, session cookies, CSRF tokens) have a type that
// logs as redacted; only their SHA-256 is kept, and they never appear in a
// log line or an error text.
package webui
