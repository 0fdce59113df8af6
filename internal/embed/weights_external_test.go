//go:build infmem_external_model

package embed

import (
	"fmt"
	"os"
	"path/filepath"
)

// useLiteBlob is what the default build embeds; the tests of a build
// without embedded weights read it from the repository, and NewUSELite
// loads the same file through $INFMEM_MODEL unless a test names another.
var useLiteBlob = func() []byte {
	path, err := filepath.Abs(filepath.Join("model", WeightsFile))
	if err != nil {
		panic(err)
	}
	if os.Getenv(ModelEnv) == "" {
		os.Setenv(ModelEnv, path)
	}
	if os.Getenv("INFMEM_EMBED_FOOTPRINT") != "" {
		return nil // TestLoadFootprint measures the load alone
	}
	b, err := os.ReadFile(path)
	if err != nil {
		panic(fmt.Sprintf("the tests need %s: %v", path, err))
	}
	return b
}()
