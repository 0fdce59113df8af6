package summarize

import (
	"math"
	"strings"
)

// lexicalCentrality scores each sentence by the cosine of its TF-IDF vector
// to the mean of all sentences' vectors: a sentence sharing the
// conversation's distinctive words scores high. It is the fallback when no
// embedder is configured (embedding.model=none). Terms get ids in order of
// first appearance and sums run in that order, so scores are bit-for-bit
// reproducible.
func lexicalCentrality(sentences [][]token) []float64 {
	ids := map[string]int{}
	type entry struct {
		id int
		w  float64
	}
	docs := make([][]entry, len(sentences))
	var df []int
	for i, toks := range sentences {
		counts := map[int]int{}
		var order []int
		for _, t := range toks {
			term := stem(t.lower)
			if term == "" {
				continue
			}
			id, ok := ids[term]
			if !ok {
				id = len(ids)
				ids[term] = id
				df = append(df, 0)
			}
			if counts[id] == 0 {
				order = append(order, id)
				df[id]++
			}
			counts[id]++
		}
		for _, id := range order {
			docs[i] = append(docs[i], entry{id: id, w: float64(counts[id])})
		}
	}
	n := float64(len(sentences))
	mean := make([]float64, len(ids))
	for _, d := range docs {
		var norm float64
		for k := range d {
			d[k].w *= math.Log(1 + n/float64(df[d[k].id]))
			norm += d[k].w * d[k].w
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for k := range d {
			d[k].w /= norm
			mean[d[k].id] += d[k].w
		}
	}
	var meanNorm float64
	for _, v := range mean {
		meanNorm += v * v
	}
	meanNorm = math.Sqrt(meanNorm)
	scores := make([]float64, len(sentences))
	if meanNorm == 0 {
		return scores
	}
	for i, d := range docs {
		var dot float64
		for _, e := range d {
			dot += e.w * mean[e.id]
		}
		scores[i] = dot / meanNorm
	}
	return scores
}

// stem reduces a word to a crude stem for matching ("tickets" → "ticket"),
// or "" for stop words and single characters, which carry no topic.
func stem(w string) string {
	w = strings.ReplaceAll(w, "’", "'")
	w = strings.TrimSuffix(w, "'s")
	if len(w) < 2 || stopWords[w] {
		return ""
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

var stopWords = setOf(
	"a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "in", "on", "at", "to", "for",
	"from", "by", "with", "about", "as", "into", "over", "after", "before", "up", "down", "out",
	"off", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have",
	"has", "had", "it", "its", "it's", "this", "that", "these", "those", "there", "here", "i",
	"i'm", "i'll", "i've", "i'd", "me", "my", "we", "we're", "we'll", "our", "us", "you",
	"you're", "you'll", "your", "he", "she", "him", "her", "his", "they", "they're", "them",
	"their", "what", "which", "who", "when", "where", "why", "how", "not", "no", "just", "also",
	"too", "very", "can", "could", "would", "should", "will", "shall", "may", "might", "must",
	"don't", "didn't", "doesn't", "can't", "won't", "isn't", "aren't", "let's", "some", "any",
	"all", "more", "most", "than", "other", "such", "only", "own", "same", "again", "still",
	"yet", "now", "really", "think", "know", "get", "got", "like", "one", "well", "oh",
	"ok", "okay", "yes", "yeah", "yep", "lol", "thanks", "thank", "hey", "hi", "hmm",
)
