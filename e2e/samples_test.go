package e2e

import (
	"slices"
	"testing"
)

// TestSampleExpectationsExist keeps the expectations in step with the
// samples.
func TestSampleExpectationsExist(t *testing.T) {
	files, err := sampleFiles()
	if err != nil {
		t.Fatal(err)
	}
	for file := range expectations {
		if !slices.Contains(files, file) {
			t.Errorf("expectations name %s, which is not in manifests/samples", file)
		}
	}
}
