package timephrase

import "testing"

func BenchmarkParse(b *testing.B) {
	now := laNow(b)
	p := New()
	for _, phrase := range []string{
		"yesterday",
		"what did we talk about last week?",
		"from March 1 to March 15",
		"next tue at 5pm", // read by the fallback
		"purple",          // unrecognised: rules and fallback both run
	} {
		b.Run(phrase, func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Parse(phrase, now, now.Location()); err != nil && phrase != "purple" {
					b.Fatal(err)
				}
			}
		})
	}
}
