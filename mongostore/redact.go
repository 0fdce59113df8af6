package mongostore

import (
	"strings"
)

// RedactURI hides the password of a MongoDB connection string, keeping
// everything else so the user can tell which server is meant. It works on
// multi-host strings that net/url cannot parse.
func RedactURI(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	// The authority ends at the first '/' or '?' after the last '@'.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return uri
	}
	if slash := strings.IndexAny(rest, "/?"); slash >= 0 && slash < at {
		// An '@' after the path is not userinfo.
		return uri
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return uri
	}
	return scheme + "://" + user + ":REDACTED" + rest[at:]
}

// redactErr renders err with any occurrence of the secret-bearing uri (or
// its password) replaced, since driver errors sometimes quote their input.
func redactErr(err error, uri string) string {
	msg := err.Error()
	if uri == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, uri, RedactURI(uri))
	if pw := passwordOf(uri); pw != "" {
		msg = strings.ReplaceAll(msg, pw, "REDACTED")
	}
	return msg
}

func passwordOf(uri string) string {
	red := RedactURI(uri)
	if red == uri {
		return ""
	}
	_, rest, _ := strings.Cut(uri, "://")
	at := strings.LastIndex(rest, "@")
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}
