package textindex

// stopWords is a compact list of English function words (articles, pronouns,
// auxiliaries, prepositions, conjunctions, a few conversational fillers) and
// their common contractions. They carry almost no weight in BM25 anyway; dropping
// them keeps posting lists short and stops a question's "what did we" from
// matching every memory. Words are compared after case folding and after a
// possessive "'s" has been removed, so "it's" is already "it" here.
var stopWords = makeSet(
	// articles, conjunctions, prepositions
	"a", "an", "the", "and", "or", "but", "nor", "so", "if", "then", "than",
	"because", "as", "while", "until", "of", "at", "by", "for", "with", "about",
	"against", "between", "into", "through", "during", "before", "after",
	"above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
	"over", "under", "again", "further", "once", "here", "there",
	// question words
	"when", "where", "why", "how", "what", "which", "who", "whom",
	// determiners and quantifiers
	"all", "any", "both", "each", "few", "more", "most", "other", "some",
	"such", "no", "not", "only", "own", "same", "too", "very", "this", "that",
	"these", "those", "just", "also",
	// pronouns
	"i", "me", "my", "myself", "we", "us", "our", "ours", "ourselves", "you",
	"your", "yours", "yourself", "yourselves", "he", "him", "his", "himself",
	"she", "her", "hers", "herself", "it", "its", "itself", "they", "them",
	"their", "theirs", "themselves",
	// auxiliaries and modals
	"am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
	"had", "having", "do", "does", "did", "doing", "will", "would", "shall",
	"should", "can", "could", "may", "might", "must", "cannot",
	// contractions with the apostrophe, and without it where that is not
	// another word ("we'll" but not "well"), as people type them; "'s" is
	// already gone ("that's" is "that"). A memory indexed before a word
	// joined the list keeps it as a term, which no query asks for.
	"i'm", "im", "i've", "ive", "i'd", "i'll", "you're", "youre", "you've",
	"youve", "you'd", "youd", "you'll", "youll", "he'd", "he'll", "hes",
	"she'd", "she'll", "shes", "we're", "we've", "weve", "we'd", "we'll",
	"they're", "theyre", "they've", "theyve", "they'd", "theyd", "they'll",
	"theyll", "isn't", "isnt", "aren't", "arent", "wasn't", "wasnt",
	"weren't", "werent", "hasn't", "hasnt", "haven't", "havent", "hadn't",
	"hadnt", "doesn't", "doesnt", "don't", "dont", "didn't", "didnt",
	"won't", "wont", "wouldn't", "wouldnt", "shouldn't", "shouldnt",
	"can't", "cant", "couldn't", "couldnt", "thats", "whats", "theres",
	"heres", "wheres", "whos", "hows", "it'll", "itll", "aint",
	// conversational fillers
	"oh", "ok", "okay", "yeah", "yes", "hey", "hi",
)

func makeSet(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// IsStopWord reports whether the case-folded word is on the stop-word list.
func IsStopWord(word string) bool {
	_, ok := stopWords[word]
	return ok
}
