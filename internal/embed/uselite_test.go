package embed

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
)

type refCase struct {
	Text   string    `json:"text"`
	IDs    []int     `json:"ids"`
	Vector []float64 `json:"vector"`
}

type refFile struct {
	Cases []refCase `json:"cases"`
}

func loadReference(t testing.TB) []refCase {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r refFile
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) < 25 {
		t.Fatalf("reference has %d cases, want at least 25", len(r.Cases))
	}
	return r.Cases
}

// The model is immutable, so tests share one instance per kernel.
var (
	testModelOnce sync.Once
	testModel     *USELite
	testModelErr  error
)

func sharedModel(t testing.TB) *USELite {
	t.Helper()
	testModelOnce.Do(func() { testModel, testModelErr = NewUSELite() })
	if testModelErr != nil {
		t.Fatal(testModelErr)
	}
	return testModel
}

func cosine64(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestTokenizerMatchesJavaScript(t *testing.T) {
	m := sharedModel(t)
	for _, c := range loadReference(t) {
		got := m.Tokenize(c.Text)
		if !slices.Equal(got, c.IDs) && !(len(got) == 0 && len(c.IDs) == 0) {
			t.Errorf("Tokenize(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}

func checkAgainstReference(t *testing.T, m *USELite, batch bool) {
	cases := loadReference(t)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	var vecs [][]float32
	if batch {
		var err error
		vecs, err = m.EmbedBatch(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		for _, s := range texts {
			v, err := m.Embed(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			vecs = append(vecs, v)
		}
	}
	minCos, minText := 2.0, ""
	for i, c := range cases {
		v := vecs[i]
		if len(v) != 512 {
			t.Fatalf("%q: got %d dims", c.Text, len(v))
		}
		if c.Vector == nil {
			for _, x := range v {
				if x != 0 {
					t.Fatalf("%q: want the zero vector, got %v...", c.Text, v[:4])
				}
			}
			continue
		}
		cos := cosine64(v, c.Vector)
		if cos < minCos {
			minCos, minText = cos, c.Text
		}
		if cos < 0.999 {
			t.Errorf("%q: cosine to JavaScript reference %.6f < 0.999", c.Text, cos)
		}
	}
	t.Logf("minimum cosine %.7f (%q)", minCos, minText)
}

func TestUSELiteMatchesJavaScript(t *testing.T) {
	checkAgainstReference(t, sharedModel(t), false)
}

func TestUSELiteBatchMatchesJavaScript(t *testing.T) {
	checkAgainstReference(t, sharedModel(t), true)
}
