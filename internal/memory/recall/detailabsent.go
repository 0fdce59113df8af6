package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/facts"
)

// The asked detail, absent (issue 23 item 5). A never-stored question is
// often answered by a note about the asked thing that does not hold the
// asked detail: "what's the policy number for the car insurance?" / "Car
// insurance moved to Admiral, £412 for the year", "who is the head coach at
// Isla's swimming club?" / "Isla swims with City of Norwich Swimming Club",
// "what time does the panto start?" / "panto … on 28 December", "what did
// the electrician say?" / "Electrician booked for Friday". AnswerAbsent
// reads the kind of value asked coarsely (any number for a "number", a
// date or a time for "what time", any name for "who"); DetailAbsent reads
// the detail asked more narrowly, each reading a bit of
// Options.DetailKinds, and reports when none of the notes that clear the
// relevance bar holds a detail of that kind:
const (
	// DetailIdent: an identifier asked (a number, code, PIN, password,
	// reference, registration, email address, phone number) and no token
	// shaped like one: a run of digits (not a year, an amount or a
	// measure), letters mixed with digits ("AB-2291", "EZY2143", "14B"), an
	// email address, or the asked noun stated ("PIN … is the year we met").
	DetailIdent = 1 << iota
	// DetailPerson: a person asked by a role ("who is the head coach at
	// the swimming club?", "what's the name of Dad's surgeon?") and no
	// name other than the question's own, a day's or month's, an
	// organisation's ("… Academy", "… Ltd") or, for a role of a person, a
	// place's ("in Norwich", "at Lovell") unless titled ("Dr Shah").
	DetailPerson
	// DetailClock: "what time …" and no time of day ("6pm", "06:40",
	// "half seven", "quarter past four", "in the morning"): a date alone
	// does not say it.
	DetailClock
	// DetailMoney: "how much … cost / charge / pay / is …" and no amount
	// of money (a currency, a money word, a number per month/hour/go).
	DetailMoney
	// DetailCount: "how many …" and no count (a number that is no date,
	// time or amount, "61k", a number word): a price does not say it.
	DetailCount
	// DetailMeasure: "what dose …", "how much does … weigh", "how far …"
	// and no number with a unit of that measure.
	DetailMeasure
	// DetailScore: "what grade / mark / score …", "what did … score" and
	// no grade or score (a number that is no date, a letter grade,
	// "distinction", "passed", a percentage).
	DetailScore
	// DetailEvent: a past event asked — "what did X say / tell / think
	// …", "what did I get / buy / give …", "where did we go / eat / stay …"
	// — and the note only plans it: no word that reports what was said,
	// no verb of getting or going in the past.
	DetailEvent
)

// DetailsAll are every DetailAbsent reading.
const DetailsAll = DetailIdent | DetailPerson | DetailClock | DetailMoney | DetailCount | DetailMeasure | DetailScore | DetailEvent

// asked is the detail a question asks for.
type asked struct {
	kind int
	// head is the asked noun ("number", "password", "surgeon"); mod the
	// word before it ("phone", "email").
	head, mod string
	// role: a person is asked, not a firm ("surgeon", not "insurance").
	role bool
	// verb is the past event's verb ("say", "get", "go").
	verb string
	// qwords are the question's words, lower case, stemmed (thingStem).
	qwords map[string]bool
}

var (
	identHeads   = setOfWords(`number no code pin password passcode reference ref id registration reg postcode username login email e-mail`)
	phoneMods    = setOfWords(`phone mobile landline telephone contact home work cell`)
	statedHeads  = setOfWords(`pin password passcode code combination username login`)
	copulaWords  = setOfWords(`is are was were`)
	moneyVerbs   = setOfWords(`cost costs charge charges charged pay paid pays price prices spend spent owe owed earn earns earned rent fee fees bill worth deposit salary wage wages`)
	weighVerbs   = setOfWords(`weigh weighs weighed`)
	notMoneyWith = setOfWords(`weigh weighs weighed need needs left take takes took sleep time milk water flour`)
	sayVerbs     = setOfWords(`say said tell told think thought reckon recommend suggest advise mention explain decide conclude`)
	getVerbs     = setOfWords(`get buy give send order`)
	goVerbs      = setOfWords(`go eat stay have`)
	scoreHeads   = setOfWords(`grade grades mark marks score scores result results`)
	// roleWords are people by role that WordNet does not make persons.
	roleWords = setOfWords(`headteacher headmaster headmistress head principal electrician quizmaster foreman coach captain chair chairman chairwoman chairperson secretary treasurer organiser organizer caretaker childminder nanny cleaner gardener owner landlady landlord`)
)

// askedDetail reads which detail query asks for; kind 0 when none of the
// readings in kinds.
func askedDetail(query string, kinds int) asked {
	raw := thingWord.FindAllString(strings.ToLower(strings.ReplaceAll(query, "’", "'")), -1)
	a := asked{qwords: map[string]bool{}}
	for _, w := range raw {
		a.qwords[thingStem(w)] = true
	}
	if len(raw) < 3 {
		return a
	}
	w0, w1 := raw[0], raw[1]
	has := func(set map[string]bool) bool {
		return slices.ContainsFunc(raw[1:], func(w string) bool { return set[w] })
	}
	switch {
	case w0 == "what" && w1 == "time" && raw[2] != "of":
		// Not "what time of day / year …".
		a.kind = DetailClock
	case w0 == "how" && w1 == "much":
		switch {
		case has(weighVerbs):
			a.kind = DetailMeasure
			a.head = "weight"
		case has(moneyVerbs) || copulaWords[raw[2]] && !has(notMoneyWith):
			a.kind = DetailMoney
		}
	case w0 == "how" && w1 == "many":
		a.kind = DetailCount
	case w0 == "how" && w1 == "far":
		a.kind, a.head = DetailMeasure, "distance"
	case w0 == "how" && w1 == "heavy":
		a.kind, a.head = DetailMeasure, "weight"
	case (w0 == "what" || w0 == "where" || w0 == "who") && w1 == "did":
		for _, w := range raw[2:] {
			switch {
			case w0 == "what" && sayVerbs[w] && raw[2] != "i" && raw[2] != "we":
				// Not "what did I say about …": a note of mine answers.
				a.kind, a.verb = DetailEvent, "say"
			case w0 == "what" && getVerbs[w]:
				a.kind, a.verb = DetailEvent, "get"
			case w0 == "where" && goVerbs[w]:
				a.kind, a.verb = DetailEvent, "go"
			case w0 == "what" && (w == "score" || w == "scored"):
				a.kind = DetailScore
			default:
				continue
			}
			break
		}
	case w0 == "who's" || w0 == "who" || w0 == "whom":
		a.person(raw, thingWord.FindAllString(strings.ReplaceAll(query, "’", "'"), -1))
	case w0 == "what's" || w0 == "what" || w0 == "which":
		i := 1
		if w0 != "what's" && copulaWords[w1] {
			i = 2
		}
		head, mod, next := nounPhrase(raw, i)
		if next > 0 && next <= len(raw) && strings.HasSuffix(raw[next-1], "numbers") {
			head = "" // "my cholesterol numbers": values, not an identifier
		}
		switch {
		case head == "name" && next < len(raw) && raw[next] == "of":
			role, _, _ := nounPhrase(raw, next+1)
			if role != "" && (personNoun(role) || roleWords[role]) {
				a.kind, a.head, a.role = DetailPerson, role, true
			}
		case head == "dose" || head == "dosage":
			a.kind, a.head = DetailMeasure, "dose"
		case scoreHeads[head]:
			a.kind = DetailScore
		case head == "number" && next < len(raw) && raw[next] == "of":
			// "the number of people": a count.
		case head == "address" && (mod == "email" || mod == "e-mail"):
			a.kind, a.head = DetailIdent, "email"
		case identHeads[head] || head == "mobile" || head == "landline":
			a.kind, a.head, a.mod = DetailIdent, head, mod
			if head == "mobile" || head == "landline" || head == "number" && phoneMods[mod] {
				a.head = "phone"
			}
		}
	}
	if a.kind&kinds == 0 {
		a.kind = 0
	}
	return a
}

// nounPhrase reads the noun phrase of raw from i: determiners and
// possessives ("Rolo's") skipped, its words to the first stop word. It
// returns its last word (stemmed of a plural), the word before it and the
// index after the phrase.
func nounPhrase(raw []string, i int) (head, mod string, next int) {
	for ; i < len(raw); i++ {
		w := raw[i]
		if thingDeterminers[w] || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "s'") {
			if head != "" {
				// "Mr Okafor's email address": the owner so far.
				head, mod = "", ""
			}
			continue
		}
		if thingStops[w] || head != "" && strings.HasSuffix(w, "ing") {
			break // "the solicitor handling …"
		}
		mod, head = head, w
	}
	if head != "number" && head != "address" && head != "dose" {
		head = thingStem(head)
	}
	return head, mod, i
}

// person reads a "who …" question: a person or firm asked, a person
// when the question names a role ("who is the head coach …"); none for
// "who is Priya?" (a name asked about, not asked for).
func (a *asked) person(raw, written []string) {
	i := 1
	if raw[0] == "who" && len(raw) > 1 && copulaWords[raw[1]] {
		i = 2
	}
	if i >= len(raw) || len(written) == len(raw) && isCapWord(written[i]) && !strings.HasSuffix(raw[i], "'s") {
		return
	}
	head, _, _ := nounPhrase(raw, i)
	a.kind = DetailPerson
	if head != "" && (personNoun(head) || roleWords[head]) && !relationWord(head) {
		a.head, a.role = head, true
	}
}

// relationWord: a relation ("dad", "sister"), whose person the profile
// names, not a role of a thing.
func relationWord(w string) bool { return sameRelation(w) != nil }

// DetailAbsent reports whether query asks for a detail of one of kinds
// (the Detail bits) and none of texts (the notes that clear the relevance
// bar) holds one. A note written without capitals is not read (its names
// and times are words as any other).
func DetailAbsent(query string, texts []string, kinds int) bool {
	a := askedDetail(query, kinds)
	if a.kind == 0 || len(texts) == 0 {
		return false
	}
	for _, t := range texts {
		if facts.Uncapitalised(t) || a.heldBy(t) {
			return false
		}
	}
	return true
}

var (
	emailRe = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+`)
	// digitRun is a run of digits in groups ("07723 410986", "981 098").
	digitRun = regexp.MustCompile(`\d+(?:[ -]\d+)*`)
	// unitAfter is a number's unit or suffix: not an identifier.
	unitSuffix  = regexp.MustCompile(`(?i)^\d+(?:[.,]\d+)?(?:st|nd|rd|th|am|pm|k|m|mg|mcg|ml|kg|g|km|mi|lb|lbs|cm|mm|x|hr|hrs|h|min|mins|s|yo|p|ft|kw|gb|mb|tb|mph|%)$`)
	currencySym = "£$€¥₹"
	clockRe     = regexp.MustCompile(`(?i)\b(?:\d{1,2}h(?:\d\d)?|(?:half|quarter)\s+(?:past|to)?\s*(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})|\d{1,2}\s*o'?clock|\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d\d|noon|midday|midnight|morning|afternoon|evening|lunchtime|teatime|tonight|overnight|first thing)\b`)
	atHourRe    = regexp.MustCompile(`(?i)\b(?:at|from|until|till|by)\s+(\d{1,2})(?:\.\d\d)?\b(\s+\w+)?`)
	months      = setOfWords(`january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec`)
	moneyRe     = regexp.MustCompile(`(?i)[£$€¥₹]\s?\d|\d\s?[£$€¥₹]|\d\s?(?:p|k)\b|\b(?:pounds?|quid|pence|euros?|dollars?|grand|gbp|eur|usd|free|half price|no charge|nothing)\b|\b\d+(?:[.,]\d+)?\s*(?:a|an|per|each|/)\s*(?:month|week|year|hour|day|night|go|time|session|lesson|visit|head|person)\b|\b\d+\.\d\d\b|/(?:mo|month|hr|hour|wk|week|yr|year)\b|\b(?:pcm|pw|pa)\b`)
	countWords  = regexp.MustCompile(`(?i)\b(?:\d+k?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen|couple|few|several|twins|triplets|both|once|twice|none|single|pair|lots|loads)\b`)
	numWord     = `(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|half|a|an|quarter)`
	doseRe      = regexp.MustCompile(`(?i)\b` + numWord + `[\s-]*(?:mg|mcg|µg|ml|milligrams?|millilitres?|g|grams?|units?|tablets?|pills?|puffs?|drops?|capsules?|spoons?|spoonfuls?|teaspoons?|tsp|sachets?|doses?|iu)\b`)
	weightRe    = regexp.MustCompile(`(?i)\b` + numWord + `[\s-]*(?:kg|kilos?|kilograms?|g|grams?|stone|st|lbs?|pounds|ounces|oz)\b`)
	distanceRe  = regexp.MustCompile(`(?i)\b` + numWord + `[\s-]*(?:mi|miles?|km|k|kilomet(?:re|er)s?|metres?|meters?|m|yards?|laps?|lengths?)\b|\bmarathon\b`)
	gradeRe     = regexp.MustCompile(`\b(?:A\*|A\+|[A-F][+-]?(?:\s|$|[.,;!]))|(?i)\b(?:distinction|merit|pass|passed|fail|failed|first|2:1|2:2|\d+\s*%|\d+\s*(?:/|out of)\s*\d+|percent|grade \w+|level \d)\b`)
	sayRe       = regexp.MustCompile(`(?i)\b(?:said|says|say|saying|told|tells|reckons|reckoned|thinks|thought|recommended|recommends|suggested|suggests|advised|advises|mentioned|mentions|according|explained|warned|confirmed|agreed|promised|diagnosed|found|reckon|think|verdict|news)\b|["“”]|:\s`)
	getRe       = regexp.MustCompile(`(?i)\b(?:got|bought|gave|given|sent|ordered|picked|chose|treated|present was|gift was|got her|got him)\b`)
	goRe        = regexp.MustCompile(`(?i)\b(?:went|been|ate|had|stayed|visited|tried|booked|took|was at|were at)\b`)
	orgWords    = setOfWords(`club academy school college university uni ltd limited plc inc co hall hospital surgery centre center vets vet practice choir theatre theater church cathedral chapel road street lane avenue close drive way square park bar pub inn cafe café restaurant hotel bank council group society trust association team fc united city county station airport`)
	titleWords  = setOfWords(`mr mrs ms miss dr prof sir dame mx`)
	dayWords    = setOfWords(`monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays christmas easter`)
	placePreps  = setOfWords(`at in on near from`)
)

// heldBy reports whether text holds a detail of the asked kind.
func (a asked) heldBy(text string) bool {
	switch a.kind {
	case DetailIdent:
		return a.identIn(text)
	case DetailPerson:
		return a.personIn(text)
	case DetailClock:
		return len(facts.Extract(text).Of(facts.Time)) > 0 || clockRe.MatchString(text) || atHour(text)
	case DetailMoney:
		return len(facts.Extract(text).Of(facts.Amount)) > 0 || moneyRe.MatchString(text) || bigNumber(text)
	case DetailCount:
		d := facts.Extract(text)
		return len(d.Of(facts.Number)) > 0 || countIn(text)
	case DetailMeasure:
		switch a.head {
		case "dose":
			return doseRe.MatchString(text)
		case "weight":
			return weightRe.MatchString(text)
		default:
			return distanceRe.MatchString(text)
		}
	case DetailScore:
		return gradeRe.MatchString(text) || len(facts.Extract(text).Of(facts.Number)) > 0
	case DetailEvent:
		switch a.verb {
		case "say":
			return sayRe.MatchString(text)
		case "get":
			return getRe.MatchString(text)
		default:
			return goRe.MatchString(text)
		}
	}
	return true
}

// bigNumberRe is a number of three digits or more, or with a thousands
// separator ("1.480", "18,400"), and the word after it.
var bigNumberRe = regexp.MustCompile(`\b(\d{1,3}(?:[.,]\d{3})+|\d{3,})\b(\s*[\p{L}]+)?`)

// bigNumber: an amount written without its currency ("Miete is 1.480
// warm"): a number of three digits or more that is no year, date or time
// and has no unit of measure after it.
func bigNumber(text string) bool {
	dates := facts.Extract(text).Of(facts.Date)
	for _, m := range bigNumberRe.FindAllStringSubmatchIndex(text, -1) {
		n := text[m[2]:m[3]]
		if slices.Contains(dates, n) || len(n) == 4 && (strings.HasPrefix(n, "19") || strings.HasPrefix(n, "20")) {
			continue
		}
		if m[1] < len(text) && text[m[1]] == ':' || m[2] > 0 && text[m[2]-1] == ':' {
			continue
		}
		if m[4] >= 0 && unitSuffix.MatchString("1"+strings.ToLower(strings.TrimSpace(text[m[4]:m[5]]))) {
			continue
		}
		return true
	}
	return false
}

// atHour: "at 7", "from 10" — an hour without am/pm, not a day of a month
// ("at 10 March").
func atHour(text string) bool {
	for _, m := range atHourRe.FindAllStringSubmatch(text, -1) {
		if !months[strings.ToLower(strings.TrimSpace(m[2]))] {
			return true
		}
	}
	return false
}

// countIn: a count word or a number that is no date, time or amount: the
// numbers facts.Extract reads as dates or amounts are left out by
// removing them before the count words are read.
func countIn(text string) bool {
	d := facts.Extract(text)
	for _, m := range countWords.FindAllStringIndex(text, -1) {
		w := strings.ToLower(text[m[0]:m[1]])
		if w[0] >= '0' && w[0] <= '9' {
			n := strings.TrimSuffix(w, "k")
			if slices.Contains(d.Of(facts.Date), n) || slices.Contains(d.Of(facts.Amount), n) || m[0] > 0 && strings.ContainsRune(currencySym, rune(text[m[0]-1])) {
				continue
			}
			if n == w && m[0] > 0 && strings.ContainsAny(text[m[0]-1:m[0]], "£$€:") {
				continue
			}
		}
		if w == "a" || w == "an" {
			continue
		}
		return true
	}
	return false
}

// identIn reports whether text holds an identifier of the asked kind.
func (a asked) identIn(text string) bool {
	if a.head == "email" {
		return emailRe.MatchString(text)
	}
	if emailRe.MatchString(text) && a.head != "phone" {
		return true
	}
	words := strings.Fields(text)
	low := make([]string, len(words))
	for i, w := range words {
		low[i] = strings.ToLower(strings.Trim(w, ".,;:!?()[]\"'“”‘’"))
	}
	// The asked noun stated: "PIN … is the year we met", "code: 4471".
	if statedHeads[a.head] {
		for i, w := range low {
			if w != a.head && !(a.head == "code" && (w == "pin" || w == "passcode")) {
				continue
			}
			for j := i + 1; j < len(low) && j <= i+6; j++ {
				if strings.HasSuffix(words[j-1], ",") || strings.HasSuffix(words[j-1], ".") {
					break
				}
				if (low[j] == "is" || low[j] == "was" || low[j] == "=") && j+1 < len(low) || strings.HasSuffix(words[j-1], ":") {
					return true
				}
			}
			if strings.HasSuffix(words[i], ":") && i+1 < len(words) {
				return true
			}
		}
	}
	for i, w := range words {
		t := strings.Trim(w, ".,;:!?()[]\"'“”‘’")
		if t == "" {
			continue
		}
		letters, digits := 0, 0
		for _, r := range t {
			switch {
			case unicode.IsDigit(r):
				digits++
			case unicode.IsLetter(r):
				letters++
			}
		}
		if digits == 0 || strings.ContainsRune(currencySym, []rune(t)[0]) {
			continue
		}
		if letters > 0 {
			// "AB-2291", "EZY2143", "14B", "cf19", "Bluebell!2024"; not
			// "6pm", "5mg", "61k", "21st", "Jet2".
			if a.head == "phone" || unitSuffix.MatchString(t) || digits < 2 || strings.Contains(t, ":") {
				continue
			}
			return true
		}
		_ = i
	}
	// Runs of digits (in groups): five digits or more; four that are no
	// year; fewer right after a word that names an identifier ("no. 3",
	// "plot 7", "number 14").
	for _, m := range digitRun.FindAllStringIndex(text, -1) {
		run := text[m[0]:m[1]]
		n := 0
		for _, r := range run {
			if r >= '0' && r <= '9' {
				n++
			}
		}
		before := strings.TrimSpace(text[:m[0]])
		after := text[m[1]:]
		if strings.ContainsAny(before[max(0, len(before)-1):], currencySym) || strings.HasPrefix(after, ".") && len(after) > 1 && after[1] >= '0' && after[1] <= '9' || strings.HasPrefix(after, ",") && len(after) > 1 && after[1] >= '0' && after[1] <= '9' || strings.HasPrefix(after, ":") {
			continue // an amount, a decimal, a time
		}
		if m[1] < len(text) && unicode.IsLetter(rune(text[m[1]])) {
			continue // read above as a token with letters
		}
		if m[0] > 0 && unicode.IsLetter(rune(text[m[0]-1])) {
			continue
		}
		switch {
		case a.head == "phone":
			if n >= 6 {
				return true
			}
		case n >= 5:
			return true
		case n == 4 && !yearLike(run, text, m[0], m[1]):
			return true
		default:
			prev := lastWord(before)
			if identHeads[prev] || prev == "#" || prev == "no" || prev == "plot" || prev == "room" || prev == "gate" || prev == "seat" || prev == "platform" || prev == "flat" || prev == "unit" || prev == "locker" || prev == "house" || prev == "door" || prev == "bus" || prev == "route" {
				return true
			}
		}
	}
	return false
}

// yearLike: a four-digit run that reads as a year (1900-2099), or a
// number with a unit after it.
func yearLike(run, text string, from, to int) bool {
	if (strings.HasPrefix(run, "19") || strings.HasPrefix(run, "20")) && len(run) == 4 {
		return true
	}
	next := lastWordAfter(text[to:])
	return next != "" && (months[next] || unitSuffix.MatchString("1"+next))
}

func lastWord(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], ".,;:!?()'\"")
}

func lastWordAfter(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], ".,;:!?()'\"")
}

// personIn reports whether text names someone who may be the person (or,
// unless a role is asked, the firm) asked for: a run of capitalised words
// that is not the question's own thing, a day or month, an organisation
// or a street, nor, for a role, a place after "at"/"in" unless titled.
func (a asked) personIn(text string) bool {
	words := strings.Fields(strings.ReplaceAll(text, "’", "'"))
	start := true
	for i := 0; i < len(words); {
		w := strings.Trim(words[i], ".,;:!?()[]\"“”")
		sentenceStart := start
		start = strings.HasSuffix(words[i], ".") || strings.HasSuffix(words[i], "!") || strings.HasSuffix(words[i], "?")
		if !isCapWord(w) || w == "I" || strings.HasPrefix(w, "I'") {
			i++
			continue
		}
		// A run of capitalised words ("City of Norwich Swimming Club").
		j, run, ends := i, []string{}, false
		for j < len(words) && !ends {
			t := strings.Trim(words[j], ".,;:!?()[]\"“”")
			lt := strings.ToLower(t)
			if !isCapWord(t) && !(len(run) > 0 && (lt == "of" || lt == "and" || lt == "the") && j+1 < len(words) && isCapWord(strings.Trim(words[j+1], ".,;:!?()[]\"“”"))) {
				break
			}
			run = append(run, t)
			ends = strings.ContainsAny(words[j][len(words[j])-1:], ".,;:!?)")
			j++
		}
		if j > i+1 && strings.ContainsAny(words[j-1][len(words[j-1])-1:], ".!?") {
			start = true
		}
		prev := ""
		if i > 0 {
			prev = strings.ToLower(strings.Trim(words[i-1], ".,;:!?()[]\"“”"))
		}
		if i > 1 && prev == "the" {
			prev = strings.ToLower(strings.Trim(words[i-2], ".,;:!?()[]\"“”"))
		}
		next := ""
		if j < len(words) && !ends {
			next = strings.ToLower(strings.Trim(words[j], ".,;:!?()[]\"“”"))
		}
		if a.namesSomeone(run, sentenceStart && !verbAfter(next), prev) {
			return true
		}
		i = j
	}
	return false
}

func isCapWord(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

// namesSomeone reads one run of capitalised words.
func (a asked) namesSomeone(run []string, sentenceStart bool, prev string) bool {
	low := make([]string, len(run))
	for i, w := range run {
		low[i] = thingStem(w)
	}
	titled := titleWords[strings.TrimSuffix(low[0], ".")]
	if titled && len(run) > 1 {
		return true
	}
	for _, w := range low {
		if a.qwords[w] || orgWords[w] {
			return false
		}
	}
	calendar := true
	for i, w := range low {
		calendar = calendar && (dayWords[strings.ToLower(run[i])] || months[w] || dayWords[w+"s"] || w == "and" || w == "of" || w == "the")
	}
	if calendar {
		return false // "Tuesday and Thursday"
	}
	if sentenceStart && len(run) == 1 && commonStart(low[0]) {
		return false
	}
	if a.role && placePreps[prev] {
		return false
	}
	return true
}

// verbAfter: the word after a capitalised word at a sentence's start
// makes it a name, the subject of a verb ("Tom borrowed our ladder", "Joy
// from the salon does my hair"), though it is also a common word.
func verbAfter(w string) bool {
	return subjectNext[w] || len(w) > 3 && strings.HasSuffix(w, "ed")
}

var subjectNext = setOfWords(`from and has had is was does did said says will would can could lent took gave came comes cuts walks runs borrowed owes teaches coaches looks takes keeps`)

// commonStart: a capitalised word at a sentence's start that is an
// everyday word ("Booked", "Need", "The"), not a name.
func commonStart(w string) bool {
	return thingStops[w] || len(facts.LowerNames(w)) == 0
}
