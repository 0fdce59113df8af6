package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// TestEveryKernelMatchesJavaScript runs the whole model on each kernel
// configuration: the pure-Go one is what arm64 and purego builds use, the
// fp32 assembly one what amd64 CPUs without F16C use.
func TestEveryKernelMatchesJavaScript(t *testing.T) {
	for _, tk := range allKernels() {
		t.Run(tk.name, func(t *testing.T) {
			if tk.kern16 == nil && strings.HasPrefix(tk.name, "go") && (testing.Short() || raceEnabled) {
				t.Skip("slow without the assembly kernel, and single-threaded")
			}
			if tk.name == "go-f16" {
				t.Skip("test-only reference kernel; covered by the kernel tests")
			}
			m, err := newUSELite(useLiteBlob, tk.kern, tk.kern16, tk.kern12)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstReference(t, m, true)
		})
	}
}

func TestUSELiteVectorsAreUnitLength(t *testing.T) {
	m := sharedModel(t)
	for _, s := range []string{"x", "hello", benchQuery, "\t\n", "🙂"} {
		v, err := m.Embed(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Errorf("%q: squared norm %v", s, ss)
		}
	}
	if m.Dim() != 512 || m.ModelID() != "use-lite-512-v1" {
		t.Errorf("Dim %d, ModelID %q", m.Dim(), m.ModelID())
	}
}

// TestUSELiteReadsOnly128Tokens: the original graph clips at 128 tokens, so
// anything after the 128th token must not change the vector.
func TestUSELiteReadsOnly128Tokens(t *testing.T) {
	m := sharedModel(t)
	base := strings.Repeat("the memory server stores notes ", 40)
	if n := len(m.Tokenize(base)); n <= 128 {
		t.Fatalf("base text has only %d tokens", n)
	}
	v1, _ := m.Embed(context.Background(), base)
	v2, _ := m.Embed(context.Background(), base+" and then something entirely different about volcanoes")
	if !slices.Equal(v1, v2) {
		t.Error("text past token 128 changed the vector")
	}
}

func TestUSELiteSimilarityIsSensible(t *testing.T) {
	m := sharedModel(t)
	ctx := context.Background()
	vs, err := m.EmbedBatch(ctx, []string{
		"What is my favorite programming language?",
		"I really like writing code in Go.",
		"The weather in Lisbon is sunny today.",
	})
	if err != nil {
		t.Fatal(err)
	}
	related, unrelated := dot(vs[0], vs[1]), dot(vs[0], vs[2])
	if related <= unrelated {
		t.Errorf("related cosine %.3f <= unrelated %.3f", related, unrelated)
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestUSELiteConcurrent checks that concurrent Embed and EmbedBatch calls
// give exactly the sequential results (run with -race).
func TestUSELiteConcurrent(t *testing.T) {
	m := sharedModel(t)
	ctx := context.Background()
	cases := loadReference(t)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	want, err := m.EmbedBatch(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Go(func() {
			if g%2 == 0 {
				got, err := m.EmbedBatch(ctx, texts)
				if err != nil {
					errs <- err
					return
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						errs <- fmt.Errorf("batch goroutine %d: text %d differs", g, i)
						return
					}
				}
				return
			}
			for i := g; i < len(texts); i += 3 {
				got, err := m.Embed(ctx, texts[i])
				if err != nil {
					errs <- err
					return
				}
				if !slices.Equal(got, want[i]) {
					errs <- fmt.Errorf("goroutine %d: text %d differs", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// cancelAfter is a context whose Err starts returning Canceled after n
// calls, to cancel a batch at a deterministic point.
type cancelAfter struct {
	context.Context
	n atomic.Int32
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestUSELiteHonoursContext(t *testing.T) {
	m := sharedModel(t)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(done, "hello"); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed on a cancelled context: %v", err)
	}
	if _, err := m.EmbedBatch(done, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedBatch on a cancelled context: %v", err)
	}
	// 100 texts of 13 tokens need several 256-token groups; cancelling after
	// the first check must stop the batch.
	ctx := &cancelAfter{Context: context.Background()}
	ctx.n.Store(1)
	if _, err := m.EmbedBatch(ctx, slices.Repeat([]string{benchQuery}, 100)); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedBatch cancelled mid-way: %v", err)
	}
}

func TestUSELiteEmptyBatchAndEmptyTexts(t *testing.T) {
	m := sharedModel(t)
	got, err := m.EmbedBatch(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty batch: %v, %v", got, err)
	}
	got, err = m.EmbedBatch(context.Background(), []string{"", "hi", ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		if len(got[i]) != 512 || slices.ContainsFunc(got[i], func(x float32) bool { return x != 0 }) {
			t.Errorf("text %d: want a 512-long zero vector", i)
		}
	}
	if m.Tokenize("\xff\xfe broken utf-8") == nil {
		t.Error("invalid UTF-8 produced no tokens")
	}
}

func TestRelu(t *testing.T) {
	x := []float32{-1, 0, 2.5, -1e-30, float32(math.Inf(-1)), float32(math.Inf(1)), -0.0, 3}
	want := []float32{0, 0, 2.5, 0, 0, float32(math.Inf(1)), 0, 3}
	relu(x)
	for i := range x {
		if x[i] != want[i] {
			t.Fatalf("relu: element %d = %v, want %v", i, x[i], want[i])
		}
	}
}

// layerNormRef is layerNorm one row at a time, as it was written first.
func layerNormRef(dst, src []float32, d, rows int, scale, bias []float32, eps float32) {
	for r := range rows {
		x := src[r*d : (r+1)*d]
		o := dst[r*d : (r+1)*d]
		var sum float64
		for _, v := range x {
			sum += float64(v)
		}
		mean := float32(sum / float64(d))
		var vs float64
		for _, v := range x {
			dv := float64(v - mean)
			vs += dv * dv
		}
		rs := float32(1 / math.Sqrt(vs/float64(d)+float64(eps)))
		for j, v := range x {
			o[j] = (v-mean)*(scale[j]*rs) + bias[j]
		}
	}
}

// TestLayerNormSameBits: four rows at a time give the bits one at a time
// gives, for every row count's remainder.
func TestLayerNormSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const d = 512
	scale, bias := randMat(r, d), randMat(r, d)
	for rows := 1; rows <= 13; rows++ {
		src := randMat(r, rows*d)
		for i := range src {
			src[i] = src[i]*3 + 0.5 // a mean away from zero
		}
		a, b := make([]float32, rows*d), make([]float32, rows*d)
		layerNorm(a, src, d, rows, scale, bias, 1e-6)
		layerNormRef(b, src, d, rows, scale, bias, 1e-6)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("rows=%d: element %d: %v, one row at a time %v", rows, i, a[i], b[i])
			}
		}
	}
}

func BenchmarkLayerNorm(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	const d, rows = 512, 48
	scale, bias, src := randMat(r, d), randMat(r, d), randMat(r, rows*d)
	dst := make([]float32, rows*d)
	b.Run("four-rows", func(b *testing.B) {
		for b.Loop() {
			layerNorm(dst, src, d, rows, scale, bias, 1e-6)
		}
	})
	b.Run("one-row", func(b *testing.B) {
		for b.Loop() {
			layerNormRef(dst, src, d, rows, scale, bias, 1e-6)
		}
	})
}

// TestKeptScratchSurvivesGC: one text's activations are reused across
// garbage collections (the pool alone is emptied by them), with the same
// vector, while a large batch's scratch is not kept.
func TestKeptScratchSurvivesGC(t *testing.T) {
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const text = "The Apollo launch moved to June 5 after the review; Dana will tell the client on Monday."
	want, err := m.Embed(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	const runs = 10
	runtime.ReadMemStats(&before)
	for range runs {
		runtime.GC()
		runtime.GC()
		got, err := m.Embed(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatal("the vector changed with a reused scratch")
		}
	}
	runtime.ReadMemStats(&after)
	// A scratch is ~2 MB; the rest of an embedding allocates ~15 KB (more
	// under the race detector).
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 1<<20 {
		t.Errorf("%d bytes allocated per embedding after collections: the scratch was not kept", per)
	}
	var texts []string
	for i := range 64 {
		texts = append(texts, fmt.Sprintf("%s (copy %d of a long batch, with more words to make it longer)", text, i))
	}
	if _, err := m.EmbedBatch(ctx, texts); err != nil {
		t.Fatal(err)
	}
	if k := m.kept.Load(); k == nil || cap(k.f1) > (keptRows+m.rowSlack())*ffnDim*5/4 {
		t.Error("the kept scratch is gone or a large batch's was kept")
	}
}
