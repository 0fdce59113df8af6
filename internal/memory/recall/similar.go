package recall

import (
	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/content"
)

// The memories a store reports as reading like the new one (StoreResult's
// Similar): CompareSimilar keeps those that state the same fact and those
// that read the same with different details.

// Similar is a stored memory that reads like a new one.
type Similar struct {
	ID   string
	Text string
	// Similarity is the cosine of the two texts' embeddings.
	Similarity float64
	// SameFact: the two state the same details (every number, amount,
	// date, time, name and negation) in mostly the same words: a
	// paraphrase or a repeat.
	SameFact bool
	// DiffersIn lists the kinds of detail that differ ("date", "amount",
	// …): a different fact, or an update of the old one.
	DiffersIn []string
	// Spellings holds a name the two spell nearly alike ("Patel",
	// "Patil"): this memory's spelling, then the new one's.
	Spellings []string
}

// Thresholds for reporting similar memories. Cosine alone cannot tell a
// paraphrase ("The Apollo deadline is December 19" / "The Apollo project
// deadline moved to December 19": 0.84) from a different fact ("Dentist
// appointment on December 2 at 9:30" / "… January 14 at 11:00": 0.98), so
// the facts' details and words decide.
const (
	// SimilarCosine: from this cosine a memory whose details differ is
	// reported (with what differs), and one whose details agree is the
	// same fact.
	SimilarCosine = 0.9
	// ParaphraseCosine and ParaphraseOverlap: below SimilarCosine, a
	// memory with the same details is the same fact from this cosine when
	// the two share this share of their words (Jaccard of keyword terms).
	ParaphraseCosine  = 0.75
	ParaphraseOverlap = 0.5
)

// Close is a stored memory close to a new text in meaning: Cos is the
// cosine of their embeddings.
type Close struct {
	ID, Text string
	Cos      float64
}

// CompareSimilar keeps, of the memories close to text in meaning (and in
// words, below SimilarCosine), those that state the same fact and those
// that read the same with different details, at most three.
func CompareSimilar(text string, ms []Close) []Similar {
	var out []Similar
	mine := facts.Extract(text)
	for _, m := range ms {
		theirs := facts.Extract(m.Text)
		diffs := facts.Compare(mine, theirs)
		cos := m.Cos
		s := Similar{ID: m.ID, Text: content.Snippet(m.Text, 200), Similarity: cos}
		// A name spelled nearly alike (a typo, or two people easily
		// confused) is worth saying under the cosine bar too.
		near := facts.NearNames(theirs, mine)
		for _, p := range near {
			s.Spellings = append(s.Spellings, p[0], p[1])
		}
		switch {
		case len(diffs) == 0:
			s.SameFact = true
		case len(diffs) > 0 && (cos >= SimilarCosine || len(near) > 0):
			for _, k := range diffs {
				s.DiffersIn = append(s.DiffersIn, string(k))
			}
		default:
			continue
		}
		if out = append(out, s); len(out) == 3 {
			break
		}
	}
	return out
}
