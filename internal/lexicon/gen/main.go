// Command gen writes the lexicon's table (../wordnet.gz) from a WordNet 3.0
// database (Debian's wordnet-base: /usr/share/wordnet):
//
//	go run ./internal/lexicon/gen -wordnet /usr/share/wordnet -o internal/lexicon/wordnet.gz
//
// The table is gzipped text, two sorted sections of lines "key<TAB>words":
// for each single-word lemma (letters only) of the nouns, verbs and
// adjectives, the other single-word lemmas of its first Senses senses in
// WordNet's order (most frequent first), and after a line "%exc" WordNet's
// exception lists (an inflected form and its base forms: "children
// child"), which the lexicon's lemmatiser reads besides its suffix rules.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory")
	out := flag.String("o", "wordnet.gz", "output file")
	senses := flag.Int("senses", 2, "senses read per lemma and part of speech, most frequent first")
	share := flag.Float64("share", 0.25, "a sense is read only when tagged at least this share of the lemma's most tagged sense's count")
	levels := flag.Int("levels", 4, "hypernym levels read above a noun's senses")
	hypSenses := flag.Int("hyp-senses", 3, "a noun's senses whose hypernyms are read, most frequent first, tagged or not (\"marathon\": the undertaking, the battle, the footrace)")
	minDepth := flag.Int("min-depth", 4, "a hypernym is kept only this many levels or more below WordNet's root (entity, object, whole, abstraction… are not)")
	flag.Parse()
	counts, top := tagCounts(filepath.Join(*dir, "cntlist.rev"))
	syn := map[string][]string{}
	exc := map[string][]string{}
	hyp := map[string][]string{}
	for pi, pos := range []string{"noun", "verb", "adj"} {
		data, err := os.ReadFile(filepath.Join(*dir, "data."+pos))
		if err != nil {
			log.Fatal(err)
		}
		index, err := os.ReadFile(filepath.Join(*dir, "index."+pos))
		if err != nil {
			log.Fatal(err)
		}
		for _, line := range strings.Split(string(index), "\n") {
			if line == "" || line[0] == ' ' {
				continue
			}
			f := strings.Fields(line)
			lemma := f[0]
			if !letters(lemma) {
				continue
			}
			// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...
			nsyn, _ := strconv.Atoi(f[2])
			np, _ := strconv.Atoi(f[3])
			offs := f[4+np+2:]
			if len(offs) != nsyn {
				log.Fatalf("index.%s: %q: %d offsets, want %d", pos, lemma, len(offs), nsyn)
			}
			tagged := false
			for si := range offs {
				tagged = tagged || counts[senseKey{lemma, pi, si + 1}] > 0
			}
			for si, o := range offs[:min(*senses, len(offs))] {
				// The senses people use: those SemCor tagged at least
				// share of the lemma's most tagged sense's count, plus one
				// each ("mother" the verb, "fuss", is left out; "mum" the
				// noun, never tagged, stays beside the adjective tagged
				// once); a sense never tagged only when first of its part
				// of speech or when none of its part of speech was tagged
				// ("mum": the flower, then the mother).
				c := counts[senseKey{lemma, pi, si + 1}]
				if float64(c+1) < *share*float64(top[lemma]+1) || c == 0 && si > 0 && tagged {
					continue
				}
				at, err := strconv.Atoi(o)
				if err != nil || at >= len(data) {
					log.Fatalf("index.%s: %q: bad offset %q", pos, lemma, o)
				}
				for _, w := range synsetWords(data[at:]) {
					if w != lemma && letters(w) && !slices.Contains(syn[lemma], w) {
						syn[lemma] = append(syn[lemma], w)
					}
				}
			}
			for _, o := range offs[:min(*hypSenses, len(offs))] {
				if pi != 0 {
					break
				}
				at, _ := strconv.Atoi(o)
				for _, w := range hypernyms(data, at, *levels, *minDepth) {
					if w != lemma && !slices.Contains(syn[lemma], w) && !slices.Contains(hyp[lemma], w) {
						hyp[lemma] = append(hyp[lemma], w)
					}
				}
			}
		}
		excs, err := os.ReadFile(filepath.Join(*dir, pos+".exc"))
		if err != nil {
			log.Fatal(err)
		}
		for _, line := range strings.Split(string(excs), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !letters(f[0]) {
				continue
			}
			for _, b := range f[1:] {
				if letters(b) && !slices.Contains(exc[f[0]], b) {
					exc[f[0]] = append(exc[f[0]], b)
				}
			}
		}
	}
	var buf bytes.Buffer
	write := func(m map[string][]string) {
		keys := make([]string, 0, len(m))
		for k, v := range m {
			if len(v) > 0 {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&buf, "%s\t%s\n", k, strings.Join(m[k], " "))
		}
	}
	write(syn)
	buf.WriteString("%exc\n")
	write(exc)
	buf.WriteString("%hyp\n")
	write(hyp)
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(buf.Bytes())
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, z.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(os.Stderr)
	fmt.Fprintf(w, "%d lemmas, %d exceptions, %d nouns with hypernyms, %d bytes, %d gzipped\n", len(syn), len(exc), len(hyp), buf.Len(), z.Len())
	w.Flush()
}

// senseKey names a lemma's sense: its part of speech (0 noun, 1 verb, 2
// adjective) and sense number (1: WordNet's first).
type senseKey struct {
	lemma      string
	pos, sense int
}

// tagCounts reads how often SemCor tagged each sense (cntlist.rev lines
// "lemma%ss_type:…  sense_number tag_cnt"; ss_type 1 noun, 2 verb, 3 and 5
// adjective), and each lemma's highest count.
func tagCounts(path string) (map[senseKey]int, map[string]int) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	counts, top := map[senseKey]int{}, map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		lemma, key, ok := strings.Cut(f[0], "%")
		if !ok || key == "" {
			continue
		}
		pos := map[byte]int{'1': 0, '2': 1, '3': 2, '5': 2}[key[0]]
		if key[0] == '4' {
			continue
		}
		sense, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			log.Fatalf("cntlist.rev: bad line %q", line)
		}
		counts[senseKey{lemma, pos, sense}] += n
		top[lemma] = max(top[lemma], counts[senseKey{lemma, pos, sense}])
	}
	return counts, top
}

// synsetWords reads the words of the synset a data file line starts with:
// "offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] ...",
// w_cnt in hex; lowercased, an adjective's marker ("(a)") and a trailing
// dot ("Dr.") dropped.
func synsetWords(line []byte) []string {
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(string(line))
	if len(f) < 4 {
		log.Fatalf("bad synset line %q", line)
	}
	n, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 4+2*int(n) {
		log.Fatalf("bad synset line %q", line)
	}
	var out []string
	for i := range int(n) {
		w := strings.ToLower(f[4+2*i])
		if j := strings.IndexByte(w, '('); j > 0 {
			w = w[:j]
		}
		out = append(out, strings.TrimSuffix(w, "."))
	}
	return out
}

// letters reports whether s is a word of ASCII letters only: no
// collocation ("natural_endowment"), hyphen or digit.
func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// hypernymsOf reads the offsets of the hypernyms (pointer "@") and
// instance hypernyms ("@i") of the noun synset at at: after the words,
// "p_cnt ptr_symbol offset pos source/target ...".
func hypernymsOf(data []byte, at int) []int {
	line := data[at:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(string(line))
	n, _ := strconv.ParseInt(f[3], 16, 32)
	p := 4 + 2*int(n)
	np, err := strconv.Atoi(f[p])
	if err != nil {
		log.Fatalf("bad synset line %q", line)
	}
	var out []int
	for i := range np {
		ptr := f[p+1+4*i : p+5+4*i]
		if (ptr[0] == "@" || ptr[0] == "@i") && ptr[2] == "n" {
			o, err := strconv.Atoi(ptr[1])
			if err != nil {
				log.Fatalf("bad pointer in %q", line)
			}
			out = append(out, o)
		}
	}
	return out
}

var rootDepth = map[int]int{}

// depthOf is how many hypernym levels the noun synset at at lies below
// WordNet's root (entity: 0), by its shortest path.
func depthOf(data []byte, at int) int {
	if d, ok := rootDepth[at]; ok {
		return d
	}
	rootDepth[at] = 0 // a cycle (none in WordNet 3.0) ends here
	d := -1
	for _, h := range hypernymsOf(data, at) {
		if hd := depthOf(data, h) + 1; d < 0 || hd < d {
			d = hd
		}
	}
	d = max(d, 0)
	rootDepth[at] = d
	return d
}

// hypernyms returns the single-word lemmas of the noun synset at at's
// hypernyms up to levels above it, nearest first, leaving out those
// fewer than minDepth levels below the root: "beagle" gives "hound",
// "dog", "canine"; "coriander" gives "herb".
func hypernyms(data []byte, at, levels, minDepth int) []string {
	var out []string
	seen := map[int]bool{at: true}
	front := []int{at}
	for range levels {
		var next []int
		for _, s := range front {
			for _, h := range hypernymsOf(data, s) {
				if seen[h] {
					continue
				}
				seen[h] = true
				next = append(next, h)
				if depthOf(data, h) < minDepth {
					continue
				}
				for _, w := range synsetWords(data[h:]) {
					if letters(w) && !slices.Contains(out, w) {
						out = append(out, w)
					}
				}
			}
		}
		front = next
	}
	return out
}
