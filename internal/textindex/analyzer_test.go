package textindex

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"   ...!!!  ", nil},
		{"John's car", []string{"john", "car"}},
		{"The students' books", []string{"student", "book"}},
		{"#ProjectAlpha kickoff", []string{"projectalpha", "kickoff"}},
		{"Meet at 10am on 2023-05-08", []string{"meet", "10", "2023", "05", "08"}}, // "am" is a stop word
		{"COVID19 vs covid-19, mp3s, the 1990s, 90's", []string{"covid", "19", "vs", "covid", "19", "mp", "3", "1990", "90"}},
		{"it's Let's JOHN'S", []string{"let", "john"}},
		{"version 1.2.3 costs $3.50", []string{"version", "1.2.3", "cost", "3.50"}},
		{"end of sentence 42.", []string{"end", "sentenc", "42"}},
		{"I'm sure we’ll go", []string{"sure", "go"}}, // curly apostrophe, contractions are stop words
		{"rock'n'roll", []string{"rock'n'rol"}},
		{"O'Neill won't say; oneill wont say", []string{"o'neil", "say", "oneil", "say"}}, // contractions are stop words with or without the apostrophe
		{"that's what's there, thats whats there", []string{}},
		{"v1.2.3 3.", []string{"v", "1.2.3", "3"}},
		{"e-mail bob@example.com", []string{"e", "mail", "bob", "exampl", "com"}},
		{"snake_case CamelCase", []string{"snake", "case", "camelcas"}},
		{"ＦＵＬＬＷＩＤＴＨ ﬁle", []string{"fullwidth", "file"}},         // NFKC
		{"Straße", []string{"strass"}},                           // case folding ß -> ss
		{"Café RÉSUMÉ naïve", []string{"cafe", "resum", "naiv"}}, // diacritics dropped
		{"İstanbul", []string{"istanbul"}},
		{"Привет мир", []string{"привет", "мир"}},
		{"東京タワー", []string{"東", "京", "タ", "ワ", "ー"}},
		{"हिंदी", []string{"हिंदी"}}, // vowel signs are kept outside Latin/Greek/Cyrillic
		{"What did Caroline research?", []string{"carolin", "research"}},
		{"running runs ran", []string{"run", "run", "ran"}},
	}
	for _, c := range cases {
		got := Tokens(c.text)
		if !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestAnalyzerOptions(t *testing.T) {
	text := "The runners were running to the meetings"
	plain := analyzer{}.tokens(text)
	if want := []string{"the", "runners", "were", "running", "to", "the", "meetings"}; !slices.Equal(plain, want) {
		t.Errorf("plain = %q, want %q", plain, want)
	}
	stopOnly := analyzer{stopWords: true}.tokens(text)
	if want := []string{"runners", "running", "meetings"}; !slices.Equal(stopOnly, want) {
		t.Errorf("stop words only = %q, want %q", stopOnly, want)
	}
	stemOnly := analyzer{stemming: true}.tokens(text)
	if want := []string{"the", "runner", "were", "run", "to", "the", "meet"}; !slices.Equal(stemOnly, want) {
		t.Errorf("stemming only = %q, want %q", stemOnly, want)
	}
}

func TestTokenLengthCap(t *testing.T) {
	long := strings.Repeat("é", 100) // two bytes each; must be cut on a rune boundary
	for _, a := range []analyzer{{}, defaultAnalyzer} {
		got := a.tokens("x " + strings.Repeat("ab", 100) + " " + long)
		if len(got) != 3 {
			t.Fatalf("got %d tokens, want 3: %q", len(got), got)
		}
		for _, tok := range got[1:] {
			if len(tok) > maxTokenBytes || !utf8.ValidString(tok) {
				t.Errorf("token %q: %d bytes, valid UTF-8 %v", tok, len(tok), utf8.ValidString(tok))
			}
		}
	}
}

func TestStopWordList(t *testing.T) {
	if n := len(stopWords); n < 100 || n > 230 {
		t.Errorf("stop-word list has %d words, want 100-230", n)
	}
	for w := range stopWords {
		if w != strings.ToLower(w) || strings.ContainsAny(w, " \t") {
			t.Errorf("stop word %q is not a folded single word", w)
		}
	}
	for _, w := range []string{"the", "what", "don't", "dont", "thats"} {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
	}
	if IsStopWord("memory") {
		t.Error(`IsStopWord("memory") = true`)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"John's #ProjectAlpha meeting at 10am", "Ｆｕｌｌ ﬁle İstanbul", "東京タワー",
		"a'''b '' 1.2.3. ..", "\xff\xfe broken utf8 \xc3", "e\u0301\u0301\u0301", "''s",
	} {
		f.Add(s)
	}
	ix := New(Options{})
	f.Fuzz(func(t *testing.T, s string) {
		for _, a := range []analyzer{{}, {stopWords: true}, defaultAnalyzer} {
			for _, tok := range a.tokens(s) {
				if tok == "" {
					t.Fatalf("empty token from %q", s)
				}
				if !utf8.ValidString(tok) {
					t.Fatalf("invalid UTF-8 token %q from %q", tok, s)
				}
				if len(tok) > maxTokenBytes {
					t.Fatalf("token %q longer than %d bytes", tok, maxTokenBytes)
				}
				if a.stopWords && !a.stemming && IsStopWord(tok) {
					t.Fatalf("stop word %q survived", tok)
				}
			}
		}
		// The query path: distinct terms, each counted, nothing lost.
		q := ix.Analyze(s)
		total := 0
		seen := map[string]bool{}
		for i, term := range q.terms {
			if seen[term] || q.counts[i] < 1 {
				t.Fatalf("term %q repeated or uncounted in %v %v", term, q.terms, q.counts)
			}
			seen[term] = true
			total += q.counts[i]
		}
		if n := len(ix.an.tokens(s)); total != n {
			t.Fatalf("Analyze counts %d tokens, the analyzer gives %d", total, n)
		}
	})
}
