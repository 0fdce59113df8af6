package gloss

import "testing"

// A note as recall returns it: English with a few words of another
// language; what the retrieve path paid per result before the index kept
// each note's glosses.
func BenchmarkText(b *testing.B) {
	notes := []string{
		"Paid the alquiler for March to the casero, 850 euros, by transfer on Tuesday",
		"Dentist appointment moved to Thursday the 14th at 3pm, remember to bring the insurance card",
		"Hausarzt Termin Dienstag 9 Uhr wegen der Nebenkostenabrechnung und dem Stromabschlag",
		"Caroline said she went to the LGBTQ support group yesterday and felt really accepted there",
	}
	Text("warm", false)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, n := range notes {
			Text(n, false)
		}
	}
}
