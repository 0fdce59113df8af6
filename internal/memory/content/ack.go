package memory

// ackKeys are the content keys of acknowledgements worth no memory.
var ackKeys = func() map[[16]byte]bool {
	m := map[[16]byte]bool{}
	for _, a := range []string{"ok", "okay", "ok!", "ok.", "k", "kk", "thanks", "thanks!", "thank you", "thank you!", "thx", "ty",
		"sure", "sure!", "got it", "got it!", "cool", "cool!", "great", "great!", "nice", "nice!", "yes", "no", "yep", "nope",
		"lol", "haha", "sounds good", "sounds good!", "perfect", "perfect!", "alright", "np", "no problem", "👍", "🙏", "ok thanks",
		"okay thanks", "thanks a lot", "awesome", "awesome!", "noted", "understood", "will do", "done"} {
		m[contentKey(a)] = true
	}
	return m
}()

// isAck reports whether a memory's text is only an acknowledgement.
func isAck(key [16]byte) bool { return ackKeys[key] }

