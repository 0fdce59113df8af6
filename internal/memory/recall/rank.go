// Package recall ranks the memories a query may be asking for: it reads
// the query (keyword terms without filler, a period it names, whether it
// asks "when", the people it names by relation: query.go, people.go),
// has the index gather candidates with their evidence (memindex.Rank),
// scores them (keywords, meaning, time, speaker, neighbouring turns,
// tie-breakers, the lesson boost), ranks a superseded memory just below
// its successor (supersede.go), finds which result states the current
// value a question asks for (CurrentFirst: current.go) and turns evidence
// into confidences and the relevance bar's verdict, fitted on every recall set at once
// (`infmem-bench recall --calibrate`); the bar rises for a query that names
// people the store knows when no result is by or about them. It reads only the index it is given and what the
// engine passes in; the engine (package memory) fetches the results.
// At store time it also finds which earlier memories a new one updates
// or contradicts (relate.go; the engine records the links) and which read
// like it (CompareSimilar: similar.go).
package recall

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/mongostore"
)

// Ranking modes.
const (
	ModeHybrid  = "hybrid"
	ModeKeyword = "keyword"
	ModeVector  = "vector"
)

// Options tunes ranking. The defaults were chosen on the LoCoMo
// development split, each kept only where leave-one-conversation-out
// agreed (see BENCHMARKS.md and infmem-bench locomo).
type Options struct {
	// KeywordWeight weighs keyword coverage: the share of the query's
	// keyword weight (BM25 of an average memory holding every query word)
	// a memory matches. VectorWeight weighs the cosine to the query.
	KeywordWeight, VectorWeight float64
	// GlossKeywords > 0 adds to each memory's keyword terms, when it is
	// stored, the English glosses of its everyday words of another
	// language (package gloss: "alquiler" → "rent", "Hausarzt" → "family
	// doctor gp"): notes written in English with words of the writer's
	// own language are found by plain English questions. On by default
	// (the coordinator's call on the held-out sets: everyday11 hit@1 51.9
	// -> 64.9); negative: off.
	GlossKeywords float64
	// GlossVectors > 0 embeds a memory's text with those glosses after
	// it (the stored text is left as written). Negative: off.
	GlossVectors float64
	// GlossShorthand > 0 glosses everyday English shorthand and acronyms
	// too ("appt", "mtg", "bday", "GP", "ISA": gloss.Of), wherever
	// GlossKeywords and GlossVectors gloss. Off by default (negative):
	// on the everyday dev sets it turned a never-stored question of
	// everyday3 into an answer (BENCHMARKS.md, lingo11).
	GlossShorthand float64
	// TurnKeywordWeight replaces KeywordWeight for a turn of a
	// conversation (a memory with neighbours); negative: KeywordWeight.
	// 1.5 by default: turns share fewer words with the question than
	// notes do, and on every conversation set (LoCoMo, messy, BEAM,
	// RealMem) a heavier keyword coverage ranks the answering turn
	// higher (R@5 +0.6 to +1.8), while notes keep KeywordWeight (1.5
	// for them too lost on the everyday sets).
	TurnKeywordWeight float64
	// NeighborShare adds this share of the best adjacent turn's score in
	// the same conversation: an answer often sits next to the turn that
	// matches the question.
	NeighborShare float64
	// SpeakerWeight is added when the query names who said the memory
	// ("What did Caroline paint?" and a turn of Caroline's). It counts for
	// that turn alone: the turns next to it borrow its evidence on what
	// is asked, not on who said it (shared, it lifted every turn of a
	// speaker who sends several messages in a row above the answer).
	SpeakerWeight float64
	// TimeWeight is added when the query names a period ("in May 2023",
	// "last week") that the memory happened in or refers to.
	TimeWeight float64
	// DatedWeight is added for a memory that refers to a time ("yesterday",
	// "on May 4") when the query asks when something happened.
	DatedWeight float64
	// Candidates is how many keyword and how many vector hits are fused.
	Candidates int
	// RecencyWeight and ImportanceWeight are tie-breakers.
	RecencyWeight, ImportanceWeight float64
	// DuplicateOverlap collapses a result whose words overlap a better
	// one's this much (Jaccard of their keyword terms): the same fact
	// stored twice. Cosine alone cannot tell "the password is X" from "the
	// password is Y".
	DuplicateOverlap float64
	// MinConfidence is the relevance bar: results below it are returned
	// but marked weak, and a search whose results are all weak says that
	// nothing relevant is remembered. It rises to namesAbsentBar when the
	// query names people none of the results is by or about (a negative
	// bar: none at all).
	MinConfidence float64
	// NeighborLength scales the neighbour share down for a turn longer
	// than this many keyword terms (share × NeighborLength / length): a
	// long turn holds its own context, and lifting it by its neighbour's
	// evidence fills the results with one conversation. 0: no scaling.
	NeighborLength float64
	// NoTypos turns off looking for the words closest to a query word no
	// memory holds (textindex.Index.Fuzzy: "meetng" finds "meeting").
	NoTypos bool
	// RecentTimeWeight replaces TimeWeight when the period the query names
	// ended within the last year ("yesterday", "last week", "on Monday",
	// "in March"): the user asks what happened then, and those memories
	// come first.
	RecentTimeWeight float64
	// LessonWeight is added to a lesson (source "lesson": what was learned
	// about helping this user) that clears the relevance bar on its own
	// evidence, so that it sorts before ordinary memories of similar
	// relevance but not before clearly better ones. A memory outside a
	// conversation scores about 1.8 × (coverage + cosine), so 0.2 lets a
	// lesson pass one whose coverage + cosine is up to about 0.11 higher.
	LessonWeight float64
	// FoldShare folds a turn into the result next to it in the same
	// conversation, as that result's context, when one of the two owes at
	// least this share of its score to what the other lends it (the
	// neighbour share): the pair is one place in the answer, shown
	// together, rather than two places holding the same evidence. 0.01
	// (the default) folds nearly every pair that lends: it gained on
	// every recall set (BENCHMARKS.md "Folding on by default"); with the
	// whole-pool fold and the second ring (RingCoverage) hybrid ranking
	// finds at least as much as keywords or meaning alone on the
	// conversations of TestFusionNotBelowParts. Its results show about
	// three messages each, and within an equal number of messages shown
	// the unfolded list finds more ("The default fold at an equal budget
	// of messages"); it stays on because with the default top_k the
	// answer is in front of the model more often on every set, and with
	// it off RealMem's R@5 falls below plain BM25.
	// Negative: never fold.
	FoldShare float64
	// RingCoverage lets a turn two places from a result join its context
	// (next to a turn folded into it, with folding on) when at least this
	// share of the query's ideal keyword score is in it: the question's
	// own words, not only a name every turn of the chat shares (those
	// reach 0.01-0.05). Negative: only the turns next to a result fold.
	RingCoverage float64
	// ChainCoverage lets a ranked turn next to a turn folded into a kept
	// result join that result (rather than take a place of its own) when
	// the two are a pair and at least this share of the query's ideal
	// keyword score is in it: the ring's rule, wherever the turn ranks
	// (without it, a short chat split into two results side by side
	// takes two places for one passage). With it a kept result takes in
	// its paired neighbours from the whole pool at once. Off by default
	// (negative): its R@k gain comes from each result showing about half
	// as many messages again, and within the same number of messages
	// shown it finds fewer answers (BENCHMARKS.md, "The chain fold").
	// 0.05 is the value measured there.
	ChainCoverage float64
	// ConvCover keeps a turn from taking a place of its own while the
	// results already show at least this share of its conversation's
	// turns (own and context): a short conversation (a chat session of a
	// few turns) already largely in front of the model gains little from
	// another of its turns, and the place goes to the next result of
	// another conversation; such turns fill what is left after the walk.
	// A long conversation (hundreds of turns) never reaches the share.
	// Needs folding. Negative: off. Default 0.3: it lifts RealMem's R@5
	// by 5.7 and no set loses more than 0.1 (BENCHMARKS.md "A short
	// conversation already shown gives up its next place"); like folding
	// it shows more messages in the first five (RealMem 13.7 -> 16.7).
	ConvCover float64
	// SynonymWeight adds, for each word of the query (not a stop word,
	// filler, time word, number or name), its synonyms in the lexicon
	// (package lexicon: WordNet's most used senses) as other words for it
	// in the keyword stage, each scoring this share of the lower of its
	// own and the word's weight, and counted once with the word
	// (textindex.Query.WithSynonyms): "bill" finds "invoice". 0 or
	// negative: off (the default).
	SynonymWeight float64
	// NoRelationVariants turns off looking for the other words of a
	// relation the query names ("mum" and "mom" for "mother", "manager"
	// for "boss": relationVariants) as alternatives of its word.
	NoRelationVariants bool
	// ShortCosine discounts the meaning of a turn with at most
	// ShortLength keyword terms (default 3) by this share (0 or negative:
	// off, the default): the cosine of "caroline: wow" comes mostly from
	// the speaker's name, which the speaker prior already counts.
	ShortCosine float64
	ShortLength int
	// NoSpeakerVector embeds the query without the words that name a
	// speaker (memindex.Index.NamesPerson) when it names one: the speaker
	// prior already carries the name, and a short turn's cosine would
	// count it again. Off by default.
	NoSpeakerVector bool
	// OtherThingBar is the relevance bar of a search whose question asks
	// for a value of a thing it names with a word before it ("how much is
	// the water bill?") while the results give such values only for other
	// things of the kind ("the electricity bill"): OtherThing. Default
	// 0.9, the bar of a question naming someone no result is about
	// (namesAbsentBar), not fitted: on every recall set it tells three
	// never-stored questions of the everyday sets nothing_relevant (their
	// first result's confidence 0.45-0.53) and no answerable one
	// (BENCHMARKS.md, "Another thing of the same kind"). Negative: off.
	OtherThingBar float64
	// OtherOwnerBar is the relevance bar of a search whose question asks
	// for a value of someone's thing ("what is Grace's mobile number?",
	// "when is Sam's wedding?") while the results give it only for
	// someone else ("Dad's new mobile number…", "Our wedding
	// anniversary…"): OtherOwner. Default 0.9, the bar of a question
	// naming someone no result is about (namesAbsentBar), not fitted: it
	// tells two never-stored questions of everyday3 nothing_relevant and
	// no answerable one on any recall set (BENCHMARKS.md, "Never stored,
	// still answered"). Negative: off.
	OtherOwnerBar float64
	// ModifierAbsentBar is the relevance bar of a note that names the
	// owner of the thing a question asks about and gives the thing's
	// head, while the question's modifier of it is a word no memory holds
	// and the note says it in no other words ("what's Pepper's microchip
	// number?" / "The neighbours at number 14 … feed Pepper"):
	// AskedAbsent, OtherKindOf. Default 0.9, the bar of a question naming
	// someone no result is about (namesAbsentBar), not fitted
	// (BENCHMARKS.md, "The asked word absent, and its stand-ins").
	// Negative: off.
	ModifierAbsentBar float64
	// AnswerAbsentBar is the relevance bar of a search whose question
	// asks for a value of one kind ("how much …", "when is …", "who is
	// …", "what's the … number") while none of the notes that clear the
	// bar gives one: AnswerAbsent. Notes only (a turn is dated by its
	// session). Default 1.01, above every confidence: the reading, not the
	// evidence, says the answer is not there (at 0.9, two of the five
	// never-stored questions it reads on the everyday sets keep a first
	// confidence of 0.91-0.96); on every recall set it tells no
	// answerable question nothing_relevant (BENCHMARKS.md, "The value
	// asked for, absent"). Negative: off.
	AnswerAbsentBar float64
	// AnswerAbsentLower: AnswerAbsent reads a note written without a
	// capital letter by its words, not its capitals (names by
	// facts.LowerNames, "may 4" a date), so that a writer who uses no
	// capitals gets the verdicts of one who does (issue 23 item 5). Default
	// 1 (on); negative: off (names and weak months by capitals only).
	AnswerAbsentLower float64
	// DetailAbsentBar is the relevance bar of a search whose question
	// asks for a detail (an identifier, a person by role, a time of day,
	// an amount of money, a count, a measure, a score, a past event)
	// while none of the notes that clear the bar holds one of that kind:
	// DetailAbsent, its readings DetailKinds's bits (issue 23 item 5, the
	// note about the asked thing without the asked detail). Notes only.
	// Default 1.01, above every confidence; negative: off.
	DetailAbsentBar float64
	// DetailKinds are the readings of DetailAbsentBar: the Detail bits of
	// recall.DetailAbsent (default DetailsAll, 255).
	DetailKinds float64
	// DetailFirst, above 0, has DetailAbsentBar read only the notes that
	// clear the bar with at least DetailFirst times the confidence of the
	// first that clears it (1: the first and its ties), not every note
	// that clears it.
	DetailFirst float64
	// DetailNear, above 0, has DetailAbsentBar read too the notes under
	// the bar with at least DetailNear times the first result's
	// confidence (a note the bar hid that scores nearly as the first: a
	// candidate answer). Default 0.8; negative: off.
	DetailNear float64
	// AnswerAbsentShort: AnswerAbsent also reads a date or a time given
	// in a short form of another language's habits ("17/01", "03/2027",
	// "14h", "9h30", "mer 18h45"; answer11, 2026-11-29 seventh). On by
	// default (1: the held-out check, see WordsMetKinds); negative: off.
	AnswerAbsentShort float64
	// FocusAbsentBar is the relevance bar of a search whose question asks
	// for a detail of a thing ("what was the atmosphere like at the
	// dinner?") while the first result covers the question's words but
	// holds no word for the detail: FocusAbsent. Default 0.9, the bar of
	// a question naming someone no result is about (namesAbsentBar), not
	// fitted (BENCHMARKS.md, "The detail asked for, absent"). Negative:
	// off.
	FocusAbsentBar float64
	// WordsMetBar, when positive, is the relevance bar of a search whose
	// first three results are notes that hold every content word of the
	// question (WordsMet): results at or above it are not weak. Off by
	// default (BENCHMARKS.md, "The detail asked for, absent").
	WordsMetBar float64
	// WordsMetFirstBar is the relevance bar of the first result of a
	// search when it is a note that holds, alone, every content word of
	// the question (WordsMet over its text only): "who's my doctor?" /
	// "My GP is Dr Singh…". Unlike WordsMetBar it does not read the first
	// three together, whose words may come from several notes about other
	// things ("our wedding anniversary" from a cousin's wedding and an
	// anniversary dinner). At first 0.1, the value WordsMetBar was
	// measured at, where every value from 0.01 to 0.1 gave the same
	// answers on every recall set: it answered three answerable questions of the
	// everyday sets told nothing_relevant with their right note first,
	// one with a wrong note first, and no never-stored one; the sets of
	// conversations are untouched (BENCHMARKS.md, "The first note holds
	// every word"). 0.01 since 2026-11-29 (answer5): with the readings
	// of KindsSaid it answers three more answerable questions whose first
	// note holds every word at a confidence under 0.1, no never-stored
	// one; leave-one-set-out over the four everyday sets picks 0.01 of
	// 0.1, 0.05, 0.01 for every set (BENCHMARKS.md, "Answerable everyday
	// questions told nothing_relevant"). Negative: off.
	WordsMetFirstBar float64
	// WordsMetKinds adds readings to WordsMetFirstBar's, as the bits of
	// recall.WordsMetKinds (issue 23 items 5 and 7): 1 a note word that
	// is a kind or an instance of the question's (WordNet hypernyms:
	// "race" / "marathon"), 2 a value of the kind a word asks for
	// ("charge" / "35 pounds an hour", "number" / "plot 37"), 4 in a
	// who-question the one word left met by a name, 8 a word naming one
	// of the profile's people by relation met by their name ("my
	// brother" / "Tom"). Default 11 (1, 2 and 8): on the everyday sets it
	// answers three answerable questions told nothing_relevant, all with
	// their right note first, and no never-stored one; 4 would answer two
	// more with the right note and three with a wrong one (BENCHMARKS.md,
	// "Kinds and values"). Since 2026-11-29 also KindsSaid (16, 32, 64,
	// 128: function and present-state words, an occupation for "do for a
	// living", a who-question's name next to a met word, the question's
	// verbs in other words), default 251: on the everyday sets they answer
	// six answerable questions told nothing_relevant, all with their
	// right note first, and no never-stored one (BENCHMARKS.md,
	// "Answerable everyday questions told nothing_relevant"). Since
	// 2026-11-29 sixth also KindsTerse (256, 512, 1024, 2048: a note's
	// shorthand "bday" / "dd", an inverted question's verb left unmet
	// where the note gives the value asked, an occupation "as a …", both
	// words of a relation "best friend"), default 4091: on the terse dev
	// set they answer six answerable questions told nothing_relevant,
	// all with their right note first, and no never-stored one on any set
	// (BENCHMARKS.md, abstain10). 2026-11-29 seventh also KindsRelated
	// (answer11: a clipped word, a brand for its category, a value asked
	// by its measure, associated words, family words of other languages),
	// default 131067: held out, with AnswerAbsentShort, answerable told
	// nothing_relevant falls on nine of twelve sets (about 20 questions)
	// for two never-stored ones answered (a role asked, an organ's
	// operation noted; a date of another person's occasion).
	// Negative: none.
	WordsMetKinds float64
	// SameQuestion: a memory's successor is ranked with it (supersede)
	// when the successor's own score for the question is at least this
	// share of the memory's (links between conversation turns:
	// sameQuestionTurn).
	SameQuestion float64
	// SameQuestionMeaning is SameQuestion for a successor found by meaning
	// (memindex.Links.ByMeaning: it says the value changed in other words,
	// so it scores low on a question in the older's words; BENCHMARKS.md
	// "Updates said in other words: the link's kind"). Negative: the
	// SameQuestion bar.
	SameQuestionMeaning float64
	// OtherPersonWeight is taken off the score of a note (a memory that
	// stands alone) that names some of the profile's people but none of
	// those the query asks about (otherperson.go): "what would Alex like
	// as a present?" and "Present idea for Hannah". Off by default (0 or
	// negative): at 0.6, the speaker prior's weight, it ranks the right
	// note first for three more questions of the everyday sets but tells
	// one never-stored question fewer nothing_relevant and two answerable
	// ones more (BENCHMARKS.md, "A note about someone else").
	OtherPersonWeight float64
	// AskedAbsentWeight is taken off the score of a note that names none
	// of the profile's people the query asks about (by name or relation;
	// peopleOf), whether it names others or no one: "who is Mina's
	// teacher?" and "Teachers' pension: …", "what medicine does my older
	// daughter take?" and "Our GP is Dr Okonkwo …". Unlike
	// OtherPersonWeight it also reads a note naming no one. It reorders
	// only: each rank keeps the confidence and the relevance verdict it
	// has without the weight (Rank). Default 0.6 (the speaker prior's
	// weight; chosen among 0.3, 0.6, 0.9, 1.5 on three everyday sets and
	// held on the fourth, each way): everyday2 hit@1 76.9 -> 78.5,
	// everyday4 76.2 -> 83.3, no answer ranked lower, no nothing_relevant
	// verdict changed; above 0.6 a rule reading the first note (Engine
	// answerAbsent, focusAbsent) tells an answerable question
	// nothing_relevant (BENCHMARKS.md, "Everyday hit@1"). Negative: off.
	AskedAbsentWeight float64
	// NoCalendarWords turns off counting a note (a memory that stands
	// alone) that says a weekday or month the query names its period by
	// ("which bin goes out on Tuesday?": "Brown bin goes out on Tuesday
	// night") as of that period for the time weight, as one dated in it
	// is: calendarWords.
	NoCalendarWords bool
	// CoordWeight scales a note's keyword coverage by how many of the
	// query's word groups it meets (coord.go): a note meeting met of n
	// groups keeps 1 - w + w·met/n of its coverage, so one word shared
	// with the question ("family" of "who is our family doctor?" in "a
	// family law firm") lifts a note less than the answer's meaning lifts
	// the answer ("Our GP is Dr Fenwick"). It reorders the results drawn
	// only: each rank keeps the confidence and verdict it has without the
	// cut (Rank). Off by default (0 or negative); 1 is Lucene's classic
	// coordination factor met/n (0.9 and 1 chosen alike on every three
	// everyday sets, each held on the fourth; BENCHMARKS.md
	// "Coordination"). On, it raised the development everyday sets' hit@1
	// and the held-out mean, but cost held-out everyday7 two first places
	// and everyday6 hit@3, and told one more held-out answerable question
	// nothing_relevant, so it stays behind --rank coord=1.
	CoordWeight float64
	// CoordUnknown narrows CoordWeight's cut to a query one of whose word
	// groups no memory holds (coordUnknown): the question names a thing
	// no note says in its words ("doctor" of "who is our family
	// doctor?"), so a stored answer says it otherwise and a note's lead on
	// the other words is no sign of it. Where every word of the question
	// is held by some memory, the notes holding more of them are left
	// where the keywords put them. Off by default (--rank coordunk=1).
	CoordUnknown bool
	// CoordTop, when at least 1, lets CoordWeight's cut reorder only the
	// first CoordTop results (as ranked without it): a note among them
	// stays among them, one below them stays where it is, so hit@CoordTop
	// cannot fall. 0: the cut reorders every result drawn.
	CoordTop float64
	// MeaningLead lets a note that holds none of the query's words but is
	// closer to it in meaning by at least MeaningLead (cosine) rank above
	// a note whose place comes from the words it shares with the query:
	// among the first MeaningTop results, a note (a memory with no
	// neighbouring turn) holding some of the query's words whose cosine is
	// at least MeaningLead under that of a note holding none loses its
	// keyword part ("who is our family doctor?": "a family law firm",
	// cosine 0.23, shares "family"; "Our GP is Dr Fenwick", 0.48, shares
	// nothing). A superseded note is never the one that leads (its
	// successor keeps its place). Like CoordWeight it reorders only: each
	// rank keeps the confidence and verdict it has without it (Rank).
	// On by default at 0.1 (0 means the default); negative switches it
	// off (--rank mlead=-1).
	MeaningLead float64
	// MeaningTop is how many of the first results MeaningLead reorders
	// (default 3: one below them stays where it is, so hit@3 cannot fall).
	MeaningTop float64
	// MeaningLeadGroups, when at least 1, lets MeaningLead cut only a note
	// meeting at most that many of the query's word groups
	// (textindex.Query.Groups) of a query with two or more: a lead resting
	// on one shared word ("family", "coffee"), not a note that says what
	// the question asks in its words ("who has our spare key?": "… he has
	// a spare key"). Default 1; negative: any note.
	MeaningLeadGroups float64
	// MeaningLeadRatio, when above 0, lets MeaningLead cut only a note
	// whose cosine is at most MeaningLeadRatio times the leader's: the
	// word it shares with the query carries little of the meaning the
	// leader has ("a family law firm" 0.23 against "Our GP is …" 0.48).
	// A note about the asked thing in the same sense keeps its words'
	// place ("Switched internet providers to Verizon Fios, $45 a month",
	// 0.55, against the older look-alike "Our broadband costs $55 a
	// month", 0.69). Default 0.75; negative: no ratio.
	MeaningLeadRatio float64
	// KindLead lets a note among the first KindLeadTop (3) that gives a
	// value of the kind the query asks for (askedKinds: "how much …" an
	// amount, "when is …" a date or time, "who is …" a person or firm;
	// with KindLeadWhere, "where …" a place) lead over a first note that
	// gives none, when its ranking score is at least KindLead times the
	// first's ("how much was the kitchen going to cost?": "Kitchen quote
	// … came to 18,400 pounds", 1.23, over "… can start on May 4 and should
	// take six weeks", 1.25). It reorders only (KindLeadOrder), after the
	// rules that read the order. Default 0.85 (on since session
	// 2026-11-29 fifth: held out +1 first place on three people, no loss);
	// negative: off (--rank klead=-1).
	KindLead float64
	// KindLeadTop is how many of the first results KindLead reads
	// (default 3).
	KindLeadTop float64
	// KindLeadWhere, above 0, lets KindLead read "where …" as asking for
	// a place (default 1, on; negative: off).
	KindLeadWhere float64
}

// WithDefaults is o with every unset weight at its default; a negative
// one switches its term off.
func (o Options) WithDefaults() Options {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.KeywordWeight, 1)
	def(&o.GlossKeywords, 1)
	def(&o.GlossVectors, 1)
	def(&o.GlossShorthand, -1)
	def(&o.TurnKeywordWeight, 1.5)
	def(&o.VectorWeight, 1)
	def(&o.NeighborShare, 0.8)
	def(&o.SpeakerWeight, 0.6)
	def(&o.TimeWeight, 0.5)
	def(&o.RecentTimeWeight, 1.5)
	def(&o.NeighborLength, 30)
	def(&o.DatedWeight, 0.3)
	def(&o.RecencyWeight, 0.02)
	def(&o.ImportanceWeight, 0.02)
	def(&o.DuplicateOverlap, 0.8)
	def(&o.MinConfidence, 0.4)
	def(&o.LessonWeight, 0.2)
	def(&o.FoldShare, 0.01)
	def(&o.RingCoverage, 0.05)
	def(&o.ChainCoverage, -1)
	def(&o.ConvCover, 0.3)
	def(&o.OtherThingBar, namesAbsentBar)
	def(&o.OtherOwnerBar, namesAbsentBar)
	def(&o.ModifierAbsentBar, namesAbsentBar)
	def(&o.AnswerAbsentBar, 1.01)
	def(&o.AnswerAbsentLower, 1)
	def(&o.DetailAbsentBar, 1.01)
	def(&o.DetailKinds, DetailsAll)
	def(&o.DetailNear, 0.8)
	def(&o.AnswerAbsentShort, 1)
	def(&o.FocusAbsentBar, namesAbsentBar)
	def(&o.WordsMetBar, -1)
	def(&o.WordsMetFirstBar, 0.01)
	def(&o.WordsMetKinds, KindHypernym|KindValue|KindPerson|KindsSaid|KindsTerse|KindsRelated)
	def(&o.SameQuestion, sameQuestion)
	def(&o.SameQuestionMeaning, sameQuestionMeaning)
	if o.SameQuestionMeaning < 0 {
		o.SameQuestionMeaning = o.SameQuestion
	}
	def(&o.OtherPersonWeight, -1)
	def(&o.AskedAbsentWeight, 0.6)
	def(&o.CoordWeight, -1)
	def(&o.MeaningLead, 0.1)
	def(&o.MeaningTop, 3)
	def(&o.MeaningLeadGroups, 1)
	def(&o.MeaningLeadRatio, 0.75)
	def(&o.KindLead, 0.85)
	def(&o.KindLeadTop, 3)
	def(&o.KindLeadWhere, 1)
	if o.Candidates == 0 {
		o.Candidates = 50
	}
	// Negative values switch a term off.
	for _, v := range []*float64{&o.KeywordWeight, &o.TurnKeywordWeight, &o.VectorWeight, &o.NeighborShare, &o.SpeakerWeight, &o.TimeWeight, &o.RecentTimeWeight, &o.DatedWeight, &o.RecencyWeight, &o.ImportanceWeight, &o.LessonWeight, &o.NeighborLength, &o.FoldShare, &o.RingCoverage, &o.ChainCoverage, &o.ConvCover, &o.OtherThingBar, &o.OtherOwnerBar, &o.ModifierAbsentBar, &o.AnswerAbsentBar, &o.AnswerAbsentLower, &o.AnswerAbsentShort, &o.DetailAbsentBar, &o.DetailKinds, &o.DetailNear, &o.FocusAbsentBar, &o.WordsMetBar, &o.WordsMetFirstBar, &o.WordsMetKinds, &o.SameQuestion, &o.OtherPersonWeight, &o.AskedAbsentWeight, &o.CoordWeight} {
		if *v < 0 {
			*v = 0
		}
	}
	return o
}

// sourceLesson is the source of a lesson (what was learned about helping
// this user).
const sourceLesson = "lesson"

// Request is one ranking.
type Request struct {
	// Query is the query's text; Now and Loc read the periods it names.
	Query string
	Now   time.Time
	Loc   *time.Location
	// Filter is what the index may return; K how many.
	Filter memindex.Filter
	K      int
	// Mode is ModeHybrid, ModeKeyword or ModeVector.
	Mode    string
	Options Options
	// Vector embeds the query's text (nil: no semantic recall).
	Vector func(ctx context.Context, text string) ([]float32, error)
	// Contacts are the profile's contacts, read only for a query that
	// names a relation ("my sister").
	Contacts func(ctx context.Context) []mongostore.Contact
	Log      *slog.Logger
}

// Hit is a ranked memory.
type Hit struct {
	ID   bson.ObjectID
	Kind memindex.Kind
	// Score is its confidence; Weak says it is under the relevance bar.
	Score float64
	Weak  bool
	TS    int64
	Ev    *Evidence
	// Folded are the copies of this result that ranking folded into it.
	Folded []memindex.Hit
	// Context are the turns next to it that ranking folded into it
	// (Options.FoldShare), in ranking order: shown with it.
	Context []memindex.Hit
	// Uncut is its place in the order the results would have without
	// Options.CoordWeight's cut (its own place when the cut moves
	// nothing): the rules after ranking read that order for their
	// verdict, so that the cut reorders only (memory.Search).
	Uncut int
}

// Rank runs a hybrid (or keyword-only / vector-only) search over the items
// r.Filter admits and returns the best r.K, best first, with confidences
// that fall with rank; results under the relevance bar are marked weak.
func Rank(ctx context.Context, ix *memindex.Index, r Request) ([]Hit, error) {
	ro := r.Options
	// "my sister" also looks for the sister's name, from the profile.
	var refs []personRef
	var contacts []mongostore.Contact
	if r.Contacts != nil && (relationTerms(r.Query) != nil || ro.OtherPersonWeight > 0 || ro.AskedAbsentWeight > 0) {
		contacts = r.Contacts(ctx)
		refs = contactsFor(r.Query, contacts)
	}
	useVec := r.Mode != ModeKeyword && ix.HasVectors() && r.Vector != nil
	// The query is embedded (about a millisecond) while its words are
	// read and looked up on the other core. The embedding goes first: the
	// handler yields its core to it at once (runtime.Gosched) and goes on
	// with the words wherever the scheduler finds it a core — at once when
	// the embedding's worker is awake (it polls, yielding its core; the
	// daemon wakes it when it reads a retrieve), else when the embedding
	// blocks or ends. Left in this core's queue, the embedding used to
	// start only when the handler blocked: 0.19-0.24 ms later (p50 at 100k;
	// the query's vector came 0.2 ms later, the call 0.3 ms).
	var embedded chan queryVector
	if useVec {
		embedded = make(chan queryVector, 1)
		ectx, cancel := context.WithCancel(ctx)
		defer cancel() // a query answered by its period alone needs no embedding
		go func() {
			var qv queryVector
			defer func() {
				if p := recover(); p != nil {
					qv.err = fmt.Errorf("embedding the query panicked: %v", p)
				}
				embedded <- qv
			}()
			text := r.Query
			if ro.NoSpeakerVector {
				text = withoutSpeakers(ix, text)
			}
			qv.v, qv.err = r.Vector(ectx, withNames(text, refs))
		}()
		runtime.Gosched()
	}
	q := readQuery(ix, r.Query, r.Now, r.Loc)
	q.addPeople(ix, refs)
	if !ro.NoTypos {
		q.terms = ix.Fuzzy(q.terms)
	}
	if !ro.NoRelationVariants {
		q.addRelationVariants(ix, r.Query)
	}
	if ro.SynonymWeight > 0 && ro.SynonymWeight < 1 {
		q.addSynonyms(ix, r.Query, ro.SynonymWeight)
	}
	if q.onlyTime {
		// "What did we talk about yesterday?": the period's memories,
		// newest first, are the answer.
		if hits := periodHits(ix, r.Filter, &q, r.K); len(hits) > 0 {
			return hits, nil
		}
	}
	useKW := r.Mode != ModeVector
	var holds []textindex.Query
	if ro.OtherPersonWeight > 0 || ro.AskedAbsentWeight > 0 {
		holds, q.asked = peopleOf(ix, r.Query, contacts, refs)
	}
	if q.hasPeriod && !ro.NoCalendarWords {
		if cal := calendarWords(ix, r.Query); !cal.Empty() && len(holds) < 64 {
			q.calendar = 1 << len(holds)
			holds = append(holds, cal)
		}
	}
	coordOn := ro.CoordWeight > 0 && r.Mode != ModeVector && (!ro.CoordUnknown || coordUnknown(ix, q.terms))
	if coordOn || ro.MeaningLead > 0 && ro.MeaningLeadGroups > 0 && r.Mode != ModeVector {
		// MeaningLead reads the groups too, without the cut.
		q.coord, q.coordOn = coordGroups(q.terms, &holds), coordOn
	}
	rq := memindex.RankQuery{Filter: r.Filter, Names: q.names, Holds: holds, From: q.from, To: q.to, Period: q.hasPeriod, PeriodCandidates: ro.Candidates,
		Candidates: ro.Candidates, Neighbors: ro.NeighborShare > 0, K: r.K, DuplicateOverlap: ro.DuplicateOverlap}
	if useKW {
		q.unknown = ix.Unknown(q.terms)
		if useVec {
			// The keyword stage too, while the query is still being
			// embedded (ix.Rank takes its hits if the index has not
			// changed since).
			rq.Keywords = ix.KeywordsFirst(q.terms, r.Filter, ro.Candidates)
		}
	}
	if useVec {
		qv := <-embedded
		v, err := qv.v, qv.err
		if err != nil {
			// Semantic recall is unavailable for now; keywords still work.
			r.Log.Warn("cannot embed the query; keyword search only", "err", err)
			useVec = false
		} else {
			rq.Vector = v
		}
	}
	if useKW {
		rq.Terms = q.terms
	}
	if !useVec && rq.Terms.Empty() {
		return nil, nil
	}
	cal, bar := calibrationsFor(useKW, useVec), barsFor(useKW, useVec)
	// The scoring's and folding's arrays come from a retrieval before:
	// nothing returned points into them.
	q.scratch = getRankScratch()
	defer q.scratch.release()
	var pairs lendings
	if ro.FoldShare > 0 {
		// Folding frees places: draw enough to fill K after it.
		rq.K = foldDraw * r.K
	}
	best, err := ix.Rank(ctx, rq, func(pool []memindex.Candidate) {
		lent := score(pool, &q, &ro, bar)
		supersede(pool, ro.SameQuestion, ro.SameQuestionMeaning)
		successorsKeepPlace(pool, q.coordCut)
		if ro.MeaningLead > 0 {
			q.markSuperseded(pool)
		}
		if ro.FoldShare > 0 {
			pairs = lendingsInto(q.scratch, pool, lent)
		}
	})
	if err != nil {
		return nil, err
	}
	if ro.FoldShare > 0 {
		best = pairs.fold(best, ro.FoldShare, ro.RingCoverage, ro.ChainCoverage, ro.ConvCover, r.K)
	}
	// The confidences and the bar's verdict are read in the order the
	// results would have without AskedAbsentWeight's demotion and
	// CoordWeight's and MeaningLead's cuts; each rank then keeps its
	// confidence and verdict
	// (as CurrentMove's move does): they reorder the results, they do not
	// decide whether anything relevant is stored. The cut reorders the
	// results drawn only, after folding.
	var placed []int // the rank returned of the k-th result as read
	var uncut []int  // the place without the cut of the k-th result as read
	// The order after the cuts that reorder only (CoordWeight's, then
	// MeaningLead's among the first results); nil when neither applies.
	var final []candidateAt
	leadCut := false
	if len(q.coordCut) > 0 || ro.MeaningLead > 0 && useKW && useVec {
		final = make([]candidateAt, len(best))
		for i := range best {
			final[i] = candidateAt{i, best[i].Score - q.coordCut[best[i].ID]}
		}
		if len(q.coordCut) > 0 {
			top := len(final)
			if ro.CoordTop >= 1 {
				top = min(top, int(ro.CoordTop))
			}
			slices.SortStableFunc(final[:top], func(a, b candidateAt) int { return cmp.Compare(b.score, a.score) })
		}
		if ro.MeaningLead > 0 && useKW && useVec {
			leadCut = meaningLead(best, final, &q, &ro)
		}
	}
	if len(q.demoted) > 0 || len(q.coordCut) > 0 || leadCut {
		rankOf := make([]int, len(best))
		for i := range rankOf {
			rankOf[i] = i
		}
		if len(q.coordCut) > 0 || leadCut {
			for j, f := range final {
				rankOf[f.i] = j
			}
		}
		read := make([]candidateAt, len(best))
		for i := range best {
			read[i] = candidateAt{i, best[i].Score + q.demoted[best[i].ID]}
		}
		slices.SortStableFunc(read, func(a, b candidateAt) int { return cmp.Compare(b.score, a.score) })
		inRead := make([]memindex.Candidate, len(best))
		placed, uncut = make([]int, len(best)), make([]int, len(best))
		for k, d := range read {
			inRead[k], placed[k], uncut[k] = best[d.i], rankOf[d.i], d.i
		}
		best = inRead
	}
	out := make([]Hit, len(best))
	clears := make([]Hit, len(best))
	for i := range best {
		cd := &best[i]
		ev := evidence(cd)
		ev.Unknown = q.unknown
		ctx := pairs.context[cd.ID]
		out[i] = Hit{ID: cd.ID, Kind: cd.Kind, Score: cal.clears(ev), TS: cd.TS, Ev: ev, Folded: cd.Folded, Context: ctx, Uncut: i}
		if uncut != nil {
			out[i].Uncut = uncut[i]
		}
		// Whether it clears the bar counts the turns shown with it
		// (unitClears); its confidence stays its own turn's (with the
		// context's, confidence ran above the hit rate: BEAM's calibration
		// error 0.045 -> 0.121).
		clears[i].Score = pairs.unitClears(bar.clears(ev), ctx, q.unknown, bar.clears)
	}
	// Confidence: how likely this result is one the question asks for.
	// Weak: on its evidence, the question may have no answer stored at
	// all. Both fall with rank.
	monotone(out)
	monotone(clears)
	minimum := ro.MinConfidence
	if minimum > 0 && len(out) > 0 && ix.NamesAbsent(q.names, hitIDs(out)) {
		// The query names someone none of its results is by or about.
		minimum = max(minimum, namesAbsentBar)
	}
	for i := range out {
		out[i].Weak = clears[i].Score < minimum
	}
	if placed != nil {
		// Back to the order returned, each rank with its confidence.
		ranked := make([]Hit, len(out))
		for k, j := range placed {
			ranked[j] = out[k]
		}
		for i := range ranked {
			ranked[i].Score, ranked[i].Weak = out[i].Score, out[i].Weak
		}
		out = ranked
	}
	return out, nil
}

// candidateAt is a result's place in a ranking and its score.
type candidateAt struct {
	i     int
	score float64
}

// queryVector is the query's embedding, or why there is none.
type queryVector struct {
	v   []float32
	err error
}

// namesAbsentBar is the relevance bar for a search whose query names
// people the store knows as speakers when none of its results was said by
// them or names them (memindex.NamesAbsent): a question about Tim asked
// over a conversation Tim is not in. On LoCoMo and its messy version, the
// questions of one conversation asked over another were told
// nothing_relevant 76 and 86 % of the time with the bar alone, 99 and
// 96 % with this; answerable questions lost one in 760 (see BENCHMARKS.md).
const namesAbsentBar = 0.9

// hitIDs are the results' ids and those of the turns folded into them
// (part of the results).
func hitIDs(hits []Hit) []bson.ObjectID {
	ids := make([]bson.ObjectID, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.ID)
		for _, c := range h.Context {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// periodConfidence is the confidence of a memory of the period a query
// asks for and nothing else: it is what was asked for.
const periodConfidence = 0.9

// periodHits lists the newest memories f admits that happened in, or
// refer to, the period the query names.
func periodHits(ix *memindex.Index, f memindex.Filter, q *query, k int) []Hit {
	found := ix.During(f, q.from, q.to, k)
	out := make([]Hit, len(found))
	for i, h := range found {
		out[i] = Hit{ID: h.ID, Kind: h.Kind, Score: periodConfidence, TS: h.TS, Ev: &Evidence{During: true}}
	}
	return out
}

// evidenceFor is a candidate's evidence for query q.
func evidenceFor(cd *memindex.Candidate, q *query) *Evidence {
	ev := evidence(cd)
	ev.Unknown = q.unknown
	return ev
}

// evidence is what a candidate's confidence rests on.
func evidence(cd *memindex.Candidate) *Evidence {
	return &Evidence{Cosine: cd.Cos, Coverage: cd.Coverage, NeighborCosine: cd.NeighborCos, NeighborCoverage: cd.NeighborCoverage, During: cd.During, Speaker: cd.Speaker, Alone: cd.Alone, Score: cd.Score}
}

// score sets the ranking score of every candidate: its own evidence
// (keywords, meaning, time, the speaker the query names), the best
// neighbouring turn's share of the same, the tie-breakers, and the lesson
// boost for a lesson that clears the relevance bar (cal says whether it
// does, as the results' confidences will).
//
// With folding on (Options.FoldShare), it returns, per candidate and
// neighbour (as Candidate.Neighbors), the score that neighbour lends it;
// nil otherwise.
func score(pool []memindex.Candidate, q *query, ro *Options, bar bars) [][2]float64 {
	// own is a candidate's score on what the query asks: keywords, meaning
	// and time; speaker is the prior for a turn of the speaker it names.
	var own, speaker []float64
	var lent [][2]float64
	if sc := q.scratch; sc != nil {
		sc.own, sc.speaker = grown(sc.own, len(pool)), grown(sc.speaker, len(pool))
		own, speaker = sc.own, sc.speaker
		if ro.FoldShare > 0 {
			sc.lent = grown(sc.lent, len(pool))
			lent = sc.lent
		}
	} else {
		own, speaker = make([]float64, len(pool)), make([]float64, len(pool))
		if ro.FoldShare > 0 {
			lent = make([][2]float64, len(pool))
		}
	}
	newest, oldest := int64(math.MinInt64), int64(math.MaxInt64)
	for i := range pool {
		cd := &pool[i]
		newest, oldest = max(newest, cd.TS), min(oldest, cd.TS)
		cos := cd.Cos
		if ro.ShortCosine > 0 && ro.ShortCosine <= 1 && cd.Length <= shortLength(ro) {
			cos *= 1 - ro.ShortCosine
		}
		base := kwWeight(cd, ro)*cd.Coverage + ro.VectorWeight*cos
		prior := 0.0
		if cd.Speaker {
			prior = ro.SpeakerWeight
		}
		if cd.During || cd.Alone && cd.Holds&q.calendar != 0 {
			if q.recent {
				base += ro.RecentTimeWeight
			} else {
				base += ro.TimeWeight
			}
		}
		if q.when && cd.Dated {
			base += ro.DatedWeight
		}
		own[i], speaker[i] = base, prior
	}
	for i := range pool {
		cd := &pool[i]
		best := 0.0
		for _, n := range cd.Neighbors {
			if n >= 0 {
				best = max(best, own[n])
			}
		}
		if cd.Alone {
			// A memory outside any conversation is its own context.
			best = own[i]
		}
		recency := 0.0
		if newest > oldest {
			recency = float64(cd.TS-oldest) / float64(newest-oldest)
		}
		share := ro.NeighborShare
		if ro.NeighborLength > 0 && !cd.Alone && float64(cd.Length) > ro.NeighborLength {
			share *= ro.NeighborLength / float64(cd.Length)
		}
		cd.Score = own[i] + speaker[i] + share*best + ro.RecencyWeight*recency + ro.ImportanceWeight*cd.Importance
		if cd.Alone && q.coordOn && q.coord != 0 {
			// Taken off after the draw (Rank): it reorders the results
			// drawn, it draws none.
			if cut := (1 + share) * kwWeight(cd, ro) * cd.Coverage * (1 - coordShare(cd.Holds, q.coord, ro.CoordWeight)); cut > 0 {
				if q.coordCut == nil {
					q.coordCut = map[bson.ObjectID]float64{}
				}
				q.coordCut[cd.ID] = cut
			}
		}
		if cd.Alone && aboutSomeoneElse(cd.Holds&^q.calendar&^q.coord, q.asked) {
			cd.Score -= ro.OtherPersonWeight
		}
		if ro.AskedAbsentWeight > 0 && cd.Alone && q.asked != 0 && cd.Holds&^q.calendar&q.asked == 0 {
			cd.Score -= ro.AskedAbsentWeight
			q.demote(cd.ID, ro.AskedAbsentWeight)
		}
		if ro.LessonWeight > 0 && cd.Source == sourceLesson && bar.clears(evidenceFor(cd, q)) >= ro.MinConfidence {
			cd.Score += ro.LessonWeight
		}
		if lent != nil && !cd.Alone {
			for j, n := range cd.Neighbors {
				if n >= 0 {
					lent[i][j] = share * own[n]
				}
			}
		}
	}
	return lent
}

// kwWeight is the weight of a candidate's keyword coverage: a turn's
// TurnKeywordWeight, a note's KeywordWeight.
func kwWeight(cd *memindex.Candidate, ro *Options) float64 {
	if !cd.Alone && ro.TurnKeywordWeight > 0 {
		return ro.TurnKeywordWeight
	}
	return ro.KeywordWeight
}

// monotone makes confidences fall with rank where the ranking (with its
// speaker prior and weights) ordered them otherwise: each run of results that rises is
// replaced by its mean (isotonic regression by pooling adjacent
// violators), the closest non-increasing sequence to the estimates.
func monotone(hits []Hit) {
	type block struct {
		sum float64
		n   int
	}
	var blocks []block
	for _, h := range hits {
		blocks = append(blocks, block{h.Score, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) >= b.sum/float64(b.n) {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	i := 0
	for _, b := range blocks {
		v := math.Round(b.sum/float64(b.n)*1000) / 1000
		for j := 0; j < b.n; j++ {
			hits[i].Score = v
			i++
		}
	}
}

// Evidence is what a search result's rank and confidence rest on.
type Evidence struct {
	// Cosine is the query's cosine to the memory; Coverage the share of
	// the query's keyword weight it matches.
	Cosine, Coverage float64
	// NeighborCosine and NeighborCoverage are the best neighbouring
	// turn's (the memory's own when it stands alone).
	NeighborCosine, NeighborCoverage float64
	// During: the memory falls in, or refers to, the period the query names.
	During bool
	// Speaker: the query names who said it.
	Speaker bool
	// Alone: no turn of a conversation lies next to it (a note).
	Alone bool
	// Unknown is the share of the query's keyword weight in words no
	// memory holds (the same for every result of a search).
	Unknown float64
	// Score is the ranking score.
	Score float64
}

// Features lists the evidence a mode's confidence is calibrated on, in
// the order of its calibration weights: how well the memory's content
// answers, without the speaker prior that helps rank it.
func (ev *Evidence) Features(useKW, useVec bool) []float64 {
	during := 0.0
	if ev.During {
		during = 1
	}
	switch {
	case useKW && useVec:
		return []float64{ev.Cosine, ev.Coverage, ev.NeighborCosine, ev.NeighborCoverage, during}
	case useVec:
		return []float64{ev.Cosine, ev.NeighborCosine, during}
	}
	return []float64{ev.Coverage, ev.NeighborCoverage, during}
}

// AnswerFeatures are the evidence the relevance bar reads, in the order of
// its weights: Features, whether the query names who said it (a
// question about someone this memory holds turns of is about this
// memory's conversation, however its words are spelt), and the share of
// the query in words no memory holds (a question about what was never
// stored often names it).
func (ev *Evidence) AnswerFeatures(useKW, useVec bool) []float64 {
	speaker := 0.0
	if ev.Speaker {
		speaker = 1
	}
	return append(ev.Features(useKW, useVec), speaker, ev.Unknown)
}

// calibration turns evidence into a 0–1 estimate,
// 1 / (1 + exp(-(Bias + Weights·features))): a result's confidence (cal*)
// or the relevance bar's estimate that an answer is stored at all (bar*,
// noteBar*). Results keep their rank order; monotone then evens out the
// few places where a lower-ranked result has the higher estimate.
type calibration struct {
	useKW, useVec bool
	// answer: the weights are for AnswerFeatures.
	answer  bool
	Bias    float64
	Weights []float64
}

func (c calibration) confidence(ev *Evidence) float64 {
	z := c.Bias
	x := ev.Features(c.useKW, c.useVec)
	if c.answer {
		x = ev.AnswerFeatures(c.useKW, c.useVec)
	}
	for i, x := range x {
		z += c.Weights[i] * x
	}
	p := 1 / (1 + math.Exp(-z))
	return math.Round(p*1000) / 1000
}

// Calibrations per ranking mode: P(this result is one the question asks
// for), fitted on every set at once (LoCoMo, its messy-chat version,
// BEAM, RealMem and the everyday set, each weighing the same; positives
// the gold among each answer's first 10 results, negatives the rest and
// every result of a question whose answer is not stored) by
// `infmem-bench recall --calibrate`. A confidence of p means about p of
// such results are what was asked for on each of those sets (expected
// calibration error 0.01–0.15 per set; see BENCHMARKS.md).
var (
	calHybrid  = calibration{useKW: true, useVec: true, Bias: -4.349, Weights: []float64{-0.400, 2.337, 3.824, 0.023, 0.600}}
	calKeyword = calibration{useKW: true, Bias: -2.976, Weights: []float64{1.750, 1.045, 0.324}}
	calVector  = calibration{useVec: true, Bias: -5.009, Weights: []float64{1.660, 4.146, 0.726}}
)

// The relevance bar's models per mode: the probability that a question
// whose best result has this evidence has an answer stored at all. Turns
// of conversations and memories that stand alone (notes) read evidence
// differently (a turn says little by itself; its neighbours and who said
// it tell more), so each has its own. Turns: fitted on every set's
// conversations at once (LoCoMo, its messy-chat version, BEAM, RealMem),
// each weighing the same, by `infmem-bench recall --calibrate`; features
// AnswerFeatures. Notes: the LoCoMo-fitted model the bar used before (the
// everyday set, all notes, loses with the turns' model), features
// Features.
var (
	barHybrid  = calibration{useKW: true, useVec: true, answer: true, Bias: -5.293, Weights: []float64{4.920, 0.458, 5.672, 3.089, 2.875, 5.390, -0.421}}
	barKeyword = calibration{useKW: true, answer: true, Bias: -1.372, Weights: []float64{1.040, 4.797, 1.672, 5.265, -0.545}}
	barVector  = calibration{useVec: true, answer: true, Bias: -6.529, Weights: []float64{6.554, 8.794, 2.677, 5.169, 0.000}}

	noteBarHybrid  = calibration{useKW: true, useVec: true, Bias: -8.317, Weights: []float64{5.814, 5.521, 8.647, 0.681, 3.151}}
	noteBarKeyword = calibration{useKW: true, Bias: -3.757, Weights: []float64{6.145, 3.267, 3.300}}
	noteBarVector  = calibration{useVec: true, Bias: -7.965, Weights: []float64{8.560, 8.271, 2.314}}
)

// barFor is the relevance bar's model for a mode, for a turn of a
// conversation or a memory that stands alone.
func barFor(useKW, useVec, alone bool) calibration {
	switch {
	case useKW && useVec && alone:
		return noteBarHybrid
	case useKW && useVec:
		return barHybrid
	case useVec && alone:
		return noteBarVector
	case useVec:
		return barVector
	case alone:
		return noteBarKeyword
	}
	return barKeyword
}

// bars holds a mode's two bar models.
type bars struct{ turn, note calibration }

func barsFor(useKW, useVec bool) bars {
	return bars{turn: barFor(useKW, useVec, false), note: barFor(useKW, useVec, true)}
}

// clears is the bar model's estimate for ev.
func (b bars) clears(ev *Evidence) float64 {
	if ev.Alone {
		return b.note.confidence(ev)
	}
	return b.turn.confidence(ev)
}

// calibrationsFor is a mode's confidence models: the one fitted on every
// set for turns of conversations, and for a memory that stands alone the
// model its relevance bar reads (fitted on LoCoMo's evidence, it gives
// the everyday set's notes confidences closer to how often they are right:
// expected calibration error 0.080 against 0.102 with the turns' model,
// and a right first answer 0.5–0.9 rather than 0.15–0.3).
func calibrationsFor(useKW, useVec bool) bars {
	return bars{turn: calibrationFor(useKW, useVec), note: barFor(useKW, useVec, true)}
}

func calibrationFor(useKW, useVec bool) calibration {
	switch {
	case useKW && useVec:
		return calHybrid
	case useVec:
		return calVector
	}
	return calKeyword
}

// shortLength is the most keyword terms a turn may have for ShortCosine.
func shortLength(ro *Options) int {
	if ro.ShortLength > 0 {
		return ro.ShortLength
	}
	return 3
}

// withoutSpeakers is query q without the words that name a speaker ix
// knows ("Caroline", "Caroline's"), or q itself when it names none or is
// nothing else.
func withoutSpeakers(ix *memindex.Index, q string) string {
	fields := strings.Fields(q)
	kept := fields[:0:0]
	for _, f := range fields {
		ws := textindex.Words(f)
		if len(ws) == 1 && ix.NamesPerson(ws[0]) {
			continue
		}
		if len(ws) == 2 && ws[1] == "s" && ix.NamesPerson(ws[0]) {
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == len(fields) || len(kept) == 0 {
		return q
	}
	return strings.Join(kept, " ")
}

// rankScratch holds the arrays a ranking's scores and foldings use (score,
// lendingsInto), reused from one retrieval to the next (rankScratches):
// at 100k they were about a fifth of what a retrieval allocated, and the
// server collects garbage at every ~12 MB allocated (GOGC 25).
type rankScratch struct {
	own, speaker []float64
	lent         [][2]float64
	at           map[bson.ObjectID]int32
	hits         []memindex.Hit
	nb           [][2]int32
	owes         [][2]float64
	cov          []float64
	conv         []uint32
	ev           []Evidence
}

var rankScratches sync.Pool

// rankScratchMax is the largest pool whose arrays are kept for the next
// retrieval: a rare huge pool would otherwise hold its memory for good.
const rankScratchMax = 8192

func getRankScratch() *rankScratch {
	if sc, ok := rankScratches.Get().(*rankScratch); ok {
		return sc
	}
	return &rankScratch{}
}

// release hands sc to the next retrieval; nothing may use it after.
func (sc *rankScratch) release() {
	if cap(sc.own) > rankScratchMax || cap(sc.hits) > rankScratchMax || len(sc.at) > rankScratchMax {
		return
	}
	rankScratches.Put(sc)
}

// grown returns s with length n, every element zero, reusing its array
// when large enough.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	s = s[:n]
	clear(s)
	return s
}
