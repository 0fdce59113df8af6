package webui

import (
	"crypto/subtle"
	"mime"
	"net/http"
)

// contentSecurityPolicy lets the page load its own script, style and API
// and nothing else: no inline script or style, no other origin, no
// plugin, no framing, no form posted elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// csrfHeader carries the session's CSRF token on every write.
const csrfHeader = "X-CSRF-Token"

// maxBody bounds a request body (a memory's text is far smaller).
const maxBody = 1 << 20

// guard is what every request passes before a handler: the security
// headers, the Host and Origin checks, the session cookie (except to
// exchange a launch secret), the idle clock (pushed back by requests with
// a session only) and, for writes, the CSRF token. Connections from
// another user's processes never get here (peerListener).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")

		host, origin := s.expected()
		// DNS rebinding: a page of evil.example whose name now resolves to
		// 127.0.0.1 reaches this port with its own name in Host.
		if host == "" || r.Host != host {
			refuse(w, http.StatusMisdirectedRequest, "this address is not infmem's UI")
			return
		}
		// A browser names the page that sent a request: only the UI's own
		// may (Origin), and no other site (fetch metadata).
		if o := r.Header.Get("Origin"); o != "" && o != origin {
			refuse(w, http.StatusForbidden, "requests from other pages are refused")
			return
		}
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			// Except the launch as a top-level navigation from the launch
			// file (file:// is another site): it carries a secret only the
			// user has.
			if r.URL.Path != launchPath || r.Header.Get("Sec-Fetch-Mode") != "navigate" {
				refuse(w, http.StatusForbidden, "requests from other sites are refused")
				return
			}
		}
		if r.URL.Path == launchPath {
			s.launch(w, r)
			return
		}
		sess := s.sessionFor(r)
		if sess == nil {
			refuse(w, http.StatusUnauthorized, "no UI session: run 'infmem ui' to open the page")
			return
		}
		// Only the page's own requests keep it open: anything else that
		// knocks (a port scan, another user's probe) does not.
		s.touch()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// A write: from the page itself, as JSON, with its token. A
			// form another page posts can do none of the three.
			if r.Header.Get("Origin") != origin {
				refuse(w, http.StatusForbidden, "a change must come from the UI page")
				return
			}
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				refuse(w, http.StatusUnsupportedMediaType, "a change must be sent as JSON")
				return
			}
			tok := r.Header.Get(csrfHeader)
			if tok == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(sess.csrf)) != 1 {
				refuse(w, http.StatusForbidden, "missing or wrong CSRF token: reload the page")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r.WithContext(withSession(r.Context(), sess)))
	})
}

// launch exchanges the secret in the URL for a session cookie and sends
// the browser on to the page, so the secret leaves the address bar and is
// never valid again.
func (s *Server) launch(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		refuse(w, http.StatusMethodNotAllowed, "open the UI with the link 'infmem ui' prints")
		return
	}
	k := r.URL.Query().Get("k")
	cookie, ok := s.spendLaunch(secret(k))
	if k == "" || !ok {
		refuse(w, http.StatusForbidden, "this link was already used or has expired: run 'infmem ui' again for a new one")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: string(cookie), Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "none" && site != "same-origin" {
		// Opened from the launch file: a redirect would keep the
		// navigation cross-site, and the browser would not send the
		// SameSite=Strict cookie with it. A page of our own moves on
		// instead, and that navigation is the page's own.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/"><title>infmem</title></head>` +
			`<body><p>Opening infmem&hellip; <a href="/">Continue</a></p></body></html>` + "\n"))
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// refuse answers a refused request in plain text (the page shows it).
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg + "\n"))
}
