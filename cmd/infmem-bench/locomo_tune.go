package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/infmem/infmem/internal/memory"
)

// gridSpec is the ranking grid --cross-validate searches.
var gridSpec = "kw=1,1.5;vw=1,1.25;ns=0.6,0.8;spk=0.3,0.6;time=0.3,0.5;dated=0.2,0.3"

// rankGrid expands a grid spec into ranking options around base.
func rankGrid(spec string, base memory.RankOptions) ([]memory.RankOptions, []string, error) {
	opts, names := []memory.RankOptions{base}, []string{""}
	for _, dim := range strings.Split(spec, ";") {
		if dim = strings.TrimSpace(dim); dim == "" {
			continue
		}
		name, list, ok := strings.Cut(dim, "=")
		if !ok {
			return nil, nil, fmt.Errorf("grid %q: want name=v1,v2", dim)
		}
		var next []memory.RankOptions
		var nextNames []string
		for _, s := range strings.Split(list, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("grid %q: %w", dim, err)
			}
			for i, o := range opts {
				switch name {
				case "kw":
					o.KeywordWeight = v
				case "gloss":
					o.GlossKeywords = v
				case "glossvec":
					o.GlossVectors = v
				case "shorthand":
					o.GlossShorthand = v
				case "tkw":
					o.TurnKeywordWeight = v
				case "vw":
					o.VectorWeight = v
				case "ns":
					o.NeighborShare = v
				case "spk":
					o.SpeakerWeight = v
				case "time":
					o.TimeWeight = v
				case "dated":
					o.DatedWeight = v
				case "nlen":
					o.NeighborLength = v
				case "typos":
					o.NoTypos = v == 0
				case "rtime":
					o.RecentTimeWeight = v
				case "rec":
					o.RecencyWeight = v
				case "imp":
					o.ImportanceWeight = v
				case "fold":
					o.FoldShare = v
				case "ring":
					o.RingCoverage = v
				case "chain":
					o.ChainCoverage = v
				case "cover":
					o.ConvCover = v
				case "syn":
					o.SynonymWeight = v
				case "scos":
					o.ShortCosine = v
				case "slen":
					o.ShortLength = int(v)
				case "spkvec":
					o.NoSpeakerVector = v == 0
				case "kin":
					o.NoRelationVariants = v == 0
				case "other":
					o.OtherThingBar = v
				case "owner":
					o.OtherOwnerBar = v
				case "modabs":
					o.ModifierAbsentBar = v
				case "absent":
					o.AnswerAbsentBar = v
				case "absentlower":
					o.AnswerAbsentLower = v
				case "detail":
					o.DetailAbsentBar = v
				case "detailkinds":
					o.DetailKinds = v
				case "detailfirst":
					o.DetailFirst = v
				case "detailnear":
					o.DetailNear = v
				case "absentshort":
					o.AnswerAbsentShort = v
				case "focus":
					o.FocusAbsentBar = v
				case "met":
					o.WordsMetBar = v
				case "met1":
					o.WordsMetFirstBar = v
				case "kinds":
					o.WordsMetKinds = v
				case "sameq":
					o.SameQuestion = v
				case "sameqm":
					o.SameQuestionMeaning = v
				case "oper":
					o.OtherPersonWeight = v
				case "cal":
					o.NoCalendarWords = v == 0
				case "absentp":
					o.AskedAbsentWeight = v
				case "coord":
					o.CoordWeight = v
				case "coordunk":
					o.CoordUnknown = v > 0
				case "coordtop":
					o.CoordTop = v
				case "mlead":
					o.MeaningLead = v
				case "mleadtop":
					o.MeaningTop = v
				case "mleadg":
					o.MeaningLeadGroups = v
				case "mleadr":
					o.MeaningLeadRatio = v
				case "klead":
					o.KindLead = v
				case "kleadtop":
					o.KindLeadTop = v
				case "kleadw":
					o.KindLeadWhere = v
				default:
					return nil, nil, fmt.Errorf("grid: unknown weight %q (kw, tkw, vw, ns, spk, time, rtime, dated, nlen, typos, rec, imp, fold, ring, chain, cover, syn, kin, scos, slen, spkvec, other, owner, absent, detail, detailkinds, detailfirst, detailnear, focus, met, met1, kinds, sameq, sameqm, oper, cal, absentp, coord, coordunk, coordtop, mlead, mleadtop, mleadg, mleadr, klead, kleadtop, kleadw)", name)
				}
				next = append(next, o)
				nextNames = append(nextNames, strings.TrimPrefix(names[i]+" "+name+"="+strconv.FormatFloat(v, 'g', -1, 64), " "))
			}
		}
		opts, names = next, nextNames
	}
	return opts, names, nil
}

// locomoCrossValidate answers how much the ranking weights owe to being
// tuned on the split they are measured on: for each conversation, the grid
// point with the best R@5 + R@10 on the other conversations is chosen and
// measured on it; the held-out figures are averaged over all questions.
func locomoCrossValidate(ctx context.Context, eng *memory.Engine, data *locomoData, owners map[string]string) error {
	base := eng.RankOptions()
	defer eng.SetRankOptions(base)
	grid, names, err := rankGrid(gridSpec, base)
	if err != nil {
		return err
	}
	r := engineRetriever{eng: eng, mode: memory.ModeHybrid}
	runs := make([]recallRun, len(grid))
	for i, o := range grid {
		eng.SetRankOptions(o)
		if runs[i], err = locomoRecall(ctx, r, data, owners); err != nil {
			return err
		}
	}
	eng.SetRankOptions(base)
	def, err := locomoRecall(ctx, r, data, owners)
	if err != nil {
		return err
	}
	fmt.Printf("\ndefault ranking, all conversations:\n")
	def.print(data)

	held := recallRun{perQuestion: make([][3]float64, len(data.questions))}
	fmt.Printf("\nleave one conversation out over %d grid points (%s)\n", len(grid), gridSpec)
	for out, scope := range data.scopes {
		best, bestScore := 0, -1.0
		for i, run := range runs {
			n, score := 0, 0.0
			for qi, q := range data.questions {
				if q.conv != out {
					n++
					score += run.perQuestion[qi][1] + run.perQuestion[qi][2]
				}
			}
			if score /= float64(max(n, 1)); score > bestScore {
				best, bestScore = i, score
			}
		}
		var s recallSum
		for qi, q := range data.questions {
			if q.conv == out {
				held.perQuestion[qi] = runs[best].perQuestion[qi]
				s.add(held.perQuestion[qi])
			}
		}
		fmt.Printf("%s  chose %s\n", s.row(scope), names[best])
	}
	fmt.Printf("held out, all conversations:\n")
	held.print(data)
	return nil
}

// locomoCalibrate fits P(relevant | evidence) for one mode. Positives are
// the evidence turns a question retrieves in its own conversation (top
// 50); negatives are the three best matches for the same question in
// another conversation: on-topic against the most plausible off-topic
// memories, which is the line the relevance bar has to draw.
func locomoCalibrate(ctx context.Context, r engineRetriever, data *locomoData, owners map[string]string) error {
	useKW, useVec := r.mode != memory.ModeVector, r.mode != memory.ModeKeyword
	var pts []sample
	type firsts struct{ own, other []float64 }
	var tops []firsts
	for _, q := range data.questions {
		res, err := r.eng.Search(ctx, memory.SearchRequest{Query: q.text, Scope: q.scope, ExactScope: true, Limit: 50, Mode: r.mode})
		if err != nil {
			return err
		}
		var f firsts
		for i, m := range res.Results {
			if m.Evidence == nil {
				continue
			}
			x := m.Evidence.Features(useKW, useVec)
			if i == 0 {
				f.own = x
			}
			if q.evidence[owners[m.ID]] {
				pts = append(pts, sample{x: x, relevant: true})
			}
		}
		other := data.scopes[(q.conv+1)%len(data.scopes)]
		neg, err := r.eng.Search(ctx, memory.SearchRequest{Query: q.text, Scope: other, ExactScope: true, Limit: 3, Mode: r.mode})
		if err != nil {
			return err
		}
		for i, m := range neg.Results {
			if m.Evidence == nil {
				continue
			}
			x := m.Evidence.Features(useKW, useVec)
			if i == 0 {
				f.other = x
			}
			pts = append(pts, sample{x: x, relevant: false})
		}
		tops = append(tops, f)
	}
	w := fitLogistic(pts)
	if w == nil {
		return fmt.Errorf("calibration: no results to fit")
	}
	fmt.Printf("\nconfidence calibration for %s on %d results: bias %.3f, weights %.3f (features %s); Brier %.4f\n",
		r.mode, len(pts), w[0], w[1:], featureNames[r.mode], brier(pts, w))
	reliability(pts, w)
	// What a bar does with this fit: questions whose best result clears it
	// in their own conversation, and questions asked of another
	// conversation whose best result stays under it.
	for _, bar := range []float64{0.3, 0.4, 0.5, 0.6} {
		kept, rejected := 0, 0
		for _, f := range tops {
			if f.own != nil && prob(w, f.own) >= bar {
				kept++
			}
			if f.other == nil || prob(w, f.other) < bar {
				rejected++
			}
		}
		n := float64(max(len(tops), 1))
		fmt.Printf("  bar %.1f: best result clears it for %.1f%% of questions in their conversation; nothing clears it for %.1f%% asked of another\n",
			bar, 100*float64(kept)/n, 100*float64(rejected)/n)
	}
	return nil
}

// featureNames lists, per mode, the evidence features its confidence uses,
// in memory.Evidence.Features' order.
var featureNames = map[string]string{
	memory.ModeHybrid:  "cosine, coverage, neighbour cosine, neighbour coverage, time match",
	memory.ModeVector:  "cosine, neighbour cosine, time match",
	memory.ModeKeyword: "coverage, neighbour coverage, time match",
}

func prob(w, x []float64) float64 {
	z := w[0]
	for j, v := range x {
		z += w[j+1] * v
	}
	return 1 / (1 + math.Exp(-z))
}
