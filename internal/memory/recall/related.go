package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/lexicon"
)

// Related words. A question's word may be met by a note's word that
// everyday speech puts for it though no dictionary sense joins them
// (issue 23 item 5, answer11, 2026-11-29 seventh: answerable questions
// whose right note is first, told nothing_relevant by the bar):
//
//   - KindClip: a clipped word by a hand table ("uni" / university,
//     "meds" / medication, "vet" / veterinary: a word of three letters or
//     one the dictionary holds in another sense; a longer one shares the
//     word's stem, which every reading meets: "chiro", "rehab", "admin"),
//     or the initials of three question words ("CPD").
//   - KindBrand: a brand or company for its category ("Vodafone" for the
//     phone contract, "Jet2" for the flight, "Octopus" for gas and
//     electricity, "Aviva" for the insurance): brands.go.
//   - KindMeasure: a value asked by its measure ("how fast" / "500 Mbps",
//     "how long" / "11 km", "6 weeks", "how heavy" / "31 kg").
//   - KindAssoc: everyday associated words ("pick up" / collect, "code" /
//     combination, "heating" / boiler, "gig" / concert).
//   - KindFamily: a family word of another language ("babcia" / granny,
//     "nani", "oma", "nonna", "mausi" / aunt).
//
// Read by the words-met rule only (the nothing_relevant verdict of the
// first note), never by ranking.
const (
	KindClip    = 1 << (iota + 12) // a clipped word or the initials of three words
	KindBrand                      // a brand for its category
	KindMeasure                    // a value of the measure asked ("how fast")
	KindAssoc                      // an everyday associated word
	KindFamily                     // a family word of another language
)

// KindsRelated are the readings of answer11.
const KindsRelated = KindClip | KindBrand | KindMeasure | KindAssoc | KindFamily

// relatedReader reads texts once for the related readings of a
// question's words.
type relatedReader struct {
	query string
	kinds int
	texts []string
	held  []string

	brandsRead bool
	brandCats  map[string]bool // category words of the brands the texts name
}

// met reports whether q, the question's word at i of words, is met by the
// texts under the related readings of r.kinds.
func (r *relatedReader) met(q string, i int, words []string) bool {
	if r.kinds&KindClip != 0 && (clipHeld(q, r.held) || initialsHeld(i, words, r.held)) {
		return true
	}
	if r.kinds&KindBrand != 0 {
		if !r.brandsRead {
			r.brandCats = brandCategories(r.texts)
			r.brandsRead = true
		}
		if r.brandCats[q] || r.brandCats[lexicon.Lemma(q)] {
			return true
		}
	}
	if r.kinds&KindMeasure != 0 && (measureHeld(q, r.query, r.texts) || ageTurning[q] && measureHeld("old", r.query, r.texts)) {
		return true // "how old is Ewa turning?" / "Ewa faz 60 anos"
	}
	if r.kinds&KindAssoc != 0 && groupHeld(q, r.held, assocGroups) {
		return true
	}
	if r.kinds&KindFamily != 0 && familyHeld(q, r.held) {
		return true
	}
	return false
}

// clippings are clipped words a dictionary holds in another sense, or of
// three letters, with the words they stand for.
var clippings = map[string][]string{
	"uni": {"university"}, "unis": {"university"},
	"vet": {"veterinary", "veterinarian"}, "vets": {"veterinary", "veterinarian"},
	"meds": {"medication", "medicine", "medicines", "medications"}, "med": {"medication", "medicine"},
	"reno": {"renovation", "renovations"}, "gym": {"gymnasium", "gymnastics"},
	"info": {"information"}, "exam": {"examination"}, "exams": {"examination", "examinations"},
	"lab": {"laboratory"}, "maths": {"mathematics"}, "math": {"mathematics"},
	"sub": {"subscription"}, "subs": {"subscription", "subscriptions"},
	"rep": {"representative"}, "app": {"application"}, "flu": {"influenza"},
	"fridge": {"refrigerator"}, "photo": {"photograph"}, "prof": {"professor"},
	"hols": {"holiday", "holidays"}, "dept": {"department"}, "tel": {"telephone"},
	"op": {"operation"}, "vax": {"vaccination", "vaccine"}, "script": {"prescription"},
	"scrip": {"prescription"}, "prescrip": {"prescription"}, "admin": {"administration", "administrative", "administrator"},
	"temp": {"temporary"}, "ref": {"reference"}, "docs": {"documents"}, "bike": {"bicycle"},
}

// clipHeld reports whether a word of held is a clipping of q, or q one
// of a held word.
func clipHeld(q string, held []string) bool {
	for _, h := range held {
		if clipOf(h, q) || clipOf(q, h) {
			return true
		}
	}
	return false
}

// clipOf reports whether short is a clipping of long by the table (a
// clipping of four letters or more no dictionary holds shares long's
// stem: wordHeld reads it, "chiro" / "chiropractor").
func clipOf(short, long string) bool {
	full, ok := clippings[short]
	return ok && slices.ContainsFunc(full, func(f string) bool { return f == long || lexicon.Lemma(long) == f })
}

// initialsHeld reports whether a word of held of three or four letters,
// no dictionary word, is the initials of as many consecutive question
// words, the one at i among them ("cpd" / continuing professional
// development).
func initialsHeld(i int, words, held []string) bool {
	for _, h := range held {
		n := len(h)
		if n < 3 || n > 4 || lexicon.Known(h) || wordsMetStops[h] {
			continue
		}
		for start := max(0, i-n+1); start <= i && start+n <= len(words); start++ {
			ok := true
			for k := 0; k < n && ok; k++ {
				ok = words[start+k] != "" && words[start+k][0] == h[k]
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// measures: a question word asking a measure, the unit of a value that
// answers it. The adjectives are read only after "how" ("how long is …").
var (
	unitLength   = `km|kms|kilometres?|kilometers?|miles?|mi|m|metres?|meters?|cm|mm|ft|feet|foot|inch|inches|ins|yards?|yds?|"|”`
	unitDuration = `mins?|minutes?|hrs?|hours?|h|days?|weeks?|wks?|months?|mos?|years?|yrs?|nights?`
	unitMass     = `kg|kgs|kilos?|kilograms?|g|grams?|lbs?|stone|st|oz`
	unitSpeed    = `mbps|mb/s|gbps|gb/s|kbps|mph|km/h|kph|kmh`
	unitTemp     = `°c?|°f?|º|degrees?`
	unitAge      = `years?|yrs?|yo|y/o|anos|años|anys|ans|jahre|anni|jaar|jaren|år|lat|let`
	unitArea     = `m2|m²|sq\.?\s?ft|sq\.?\s?m|square\s(?:metres?|meters?|feet)|acres?|hectares?`
	unitValue    = func(units string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)\d(?:[\d.,]*\d)?\s?(?:` + units + `)(?:[^\p{L}\p{N}]|$)`)
	}
	measureAdj = map[string]*regexp.Regexp{
		"fast": unitValue(unitSpeed), "quick": unitValue(unitSpeed),
		"long": unitValue(unitLength + `|` + unitDuration), "far": unitValue(unitLength),
		"tall": unitValue(unitLength), "high": unitValue(unitLength), "wide": unitValue(unitLength),
		"deep": unitValue(unitLength), "big": unitValue(unitLength + `|` + unitArea), "large": unitValue(unitLength + `|` + unitArea),
		"heavy": unitValue(unitMass), "old": unitValue(unitAge), "warm": unitValue(unitTemp), "hot": unitValue(unitTemp), "cold": unitValue(unitTemp),
	}
	measureNoun = map[string]*regexp.Regexp{
		"speed": unitValue(unitSpeed), "length": unitValue(unitLength + `|` + unitDuration),
		"distance": unitValue(unitLength), "height": unitValue(unitLength), "width": unitValue(unitLength),
		"depth": unitValue(unitLength), "size": unitValue(unitLength + `|` + unitArea), "area": unitValue(unitArea),
		"weight": unitValue(unitMass), "weigh": unitValue(unitMass), "weighs": unitValue(unitMass),
		"temperature": unitValue(unitTemp), "duration": unitValue(unitDuration),
	}
)

// ageTurning are the verbs of "how old is X turning / will X be".
var ageTurning = setOfWords(`turning turn turns`)

// measureHeld reports whether q asks a measure (a noun of one, or an
// adjective after "how") and a text gives a value in a unit of it.
func measureHeld(q, query string, texts []string) bool {
	re := measureNoun[q]
	if re == nil {
		if re = measureAdj[q]; re == nil || !strings.Contains(" "+strings.ToLower(query), " how "+q) {
			return false
		}
	}
	return slices.ContainsFunc(texts, re.MatchString)
}

// assocGroups are words everyday speech puts for each other that the
// dictionary does not join: each word of a group stands for any other.
var assocGroups = groupsOf(`collect collected collecting collection pick pickup
	code combination pin passcode
	heating boiler radiator radiators
	football five-a-side 5-a-side futsal soccer
	check-up checkup review
	climbing climb bouldering
	rubbish trash garbage refuse bins bin recycling
	bins bin collection collected
	concert gig gigs
	internet wifi wi-fi broadband router
	teeth tooth hygienist
	cleaning hygienist
	lease leased leasing contract rental renting hire
	optician opticians optometrist eye eyes glasses specs
	vaccination vaccinations vaccine jab jabs booster
	holiday holidays hols trip getaway
	babysitter sitter childminder nanny childcare
	nursery preschool daycare creche childcare
	phone mobile cell cellphone landline
	accommodation halls digs lodgings dorm dormitory
	live lives living halls digs dorm
	arrive arrives arriving arrival flying landing
	grocery groceries shopping
	salary wage wages payslip pay`)

// groupsOf reads groups, one a line, into each word's group mates.
func groupsOf(lines string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(lines, "\n") {
		ws := strings.Fields(line)
		for _, w := range ws {
			for _, o := range ws {
				if o != w && !slices.Contains(out[w], o) {
					out[w] = append(out[w], o)
				}
			}
		}
	}
	return out
}

// groupHeld reports whether a word of held is a group mate of q (or of
// its lemma).
func groupHeld(q string, held []string, groups map[string][]string) bool {
	mates := groups[q]
	if l := lexicon.Lemma(q); l != "" && l != q {
		mates = append(slices.Clone(mates), groups[l]...)
	}
	if len(mates) == 0 {
		return false
	}
	for _, h := range held {
		if slices.Contains(mates, h) {
			return true
		}
		if l := lexicon.Lemma(h); l != "" && slices.Contains(mates, l) {
			return true
		}
	}
	return false
}

// familyWords: an English family word, then the words of other languages
// for the same relation (accents folded by foldAccents).
var familyWords = map[string][]string{
	"grandmother": strings.Fields(`babcia babci babunia oma omi nonna abuela abuelita avo yiayia giagia nani dadi ammamma paati bibi gogo ouma mamgu nain mormor farmor mummo halmeoni nainai waipo obaachan obaasan bubbe bubby bobe savta teta mamie meme grand-mere nagymama babicka`),
	"grandfather": strings.Fields(`dziadek dziadziu dziadzio opa opi nonno abuelo abuelito avo papou pappous pappou nanaji dadaji thatha babu oupa taid morfar farfar ukki haraboji yeye waigong ojiichan ojisan zayde saba jiddo papi pepe grand-pere nagypapa deda dedo`),
	"mother":      strings.Fields(`mama mamá mamma mami mutti maman mae madre amma ammi ammu ima eomma okaasan mamusia mamo matka`),
	"father":      strings.Fields(`papa papá pappa papi vati pai padre abba appa baba abbu tata tatus tato otosan otousan appaji`),
	"aunt":        strings.Fields(`tia tía tante zia ciocia ciotka teta mausi masi bua chachi khala thia theia tita shangazi`),
	"uncle":       strings.Fields(`tio tío onkel oncle zio wujek stryj wuj chacha mamu khalu thio tito`),
	"sister":      strings.Fields(`hermana schwester soeur sorella siostra didi behen zus syster`),
	"brother":     strings.Fields(`hermano bruder frere fratello bhai bhaiya broer bror`),
	"cousin":      strings.Fields(`primo prima cousine cugino cugina kuzyn kuzynka`),
}

// familyEnglish are the English words of each relation of familyWords.
var familyEnglish = map[string][]string{
	"grandmother": strings.Fields(`grandmother grandma granny gran nan nana nanna grandmum grandmom grandmama`),
	"grandfather": strings.Fields(`grandfather grandad granddad grandpa gramps grandda grandpapa`),
	"mother":      strings.Fields(`mother mum mom mam mummy mommy ma`),
	"father":      strings.Fields(`father dad daddy pa pop`),
	"aunt":        strings.Fields(`aunt auntie aunty`),
	"uncle":       strings.Fields(`uncle`),
	"sister":      strings.Fields(`sister sis`),
	"brother":     strings.Fields(`brother bro`),
	"cousin":      strings.Fields(`cousin`),
}

// familyHeld reports whether q is an English family word and a word of
// held is that relation's word in another language.
func familyHeld(q string, held []string) bool {
	for rel, en := range familyEnglish {
		if !slices.Contains(en, q) && !slices.Contains(en, lexicon.Lemma(q)) {
			continue
		}
		for _, h := range held {
			if slices.Contains(familyWords[rel], foldAccents(h)) {
				return true
			}
		}
	}
	return false
}

// foldAccents writes a word's accented Latin letters plain.
func foldAccents(w string) string {
	if !strings.ContainsFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) {
		return w
	}
	return accentFolder.Replace(w)
}

var accentFolder = strings.NewReplacer("á", "a", "à", "a", "â", "a", "ä", "a", "ã", "a", "å", "a", "é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ó", "o", "ò", "o", "ô", "o", "ö", "o", "õ", "o", "ø", "o", "ú", "u", "ù", "u", "û", "u", "ü", "u",
	"ñ", "n", "ç", "c", "ś", "s", "ł", "l", "ń", "n", "ż", "z", "ź", "z", "ę", "e", "ą", "a", "ć", "c", "č", "c", "š", "s", "ž", "z", "ř", "r", "ý", "y")
