//go:build infmem_external_model

package embed

// externalWeights is true: this build has no embedded weights and reads
// them from the file WeightsPath names.
const externalWeights = true

// modelWeights reads and checks the weight file. The buffer is the
// process's own, so the model copies what it keeps of it.
func modelWeights() (data []byte, inPlace bool, err error) {
	path, how, err := WeightsPath()
	if err != nil {
		return nil, false, err
	}
	data, err = readWeights(path, how)
	return data, false, err
}
