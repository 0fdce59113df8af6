package content

// ackKeys are the content keys (Key) of acknowledgements worth no memory.
var ackKeys = func() map[[16]byte]bool {
	m := map[[16]byte]bool{}
	for _, a := range []string{"ok", "okay", "ok!", "ok.", "k", "kk", "thanks", "thanks!", "thank you", "thank you!", "thx", "ty",
		"sure", "sure!", "got it", "got it!", "cool", "cool!", "great", "great!", "nice", "nice!", "yes", "no", "yep", "nope",
		"lol", "haha", "sounds good", "sounds good!", "perfect", "perfect!", "alright", "np", "no problem", "👍", "🙏", "ok thanks",
		"okay thanks", "thanks a lot", "awesome", "awesome!", "noted", "understood", "will do", "done"} {
		m[Key(a)] = true
	}
	return m
}()

// IsAck reports whether the text whose content key is key is only an
// acknowledgement ("ok", "thanks"), which maintenance prunes as noise.
func IsAck(key [16]byte) bool { return ackKeys[key] }
