//go:build !infmem_external_model

package embed

import _ "embed"

//go:embed model/use-lite.bin
var useLiteBlob []byte

// externalWeights is false: the weights are in the binary.
const externalWeights = false

// modelWeights returns the embedded blob; the model reads its fp16
// embedding table in place, from the binary's read-only data.
func modelWeights() (data []byte, inPlace bool, err error) {
	return useLiteBlob, true, nil
}
