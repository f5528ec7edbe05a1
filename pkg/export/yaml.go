package export

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Write writes objects as YAML documents separated by ---, without the
// status and the empty creation timestamp that typed objects carry: what
// kubectl apply takes.
func Write(w io.Writer, objects []runtime.Object) error {
	for i, obj := range objects {
		fields, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return fmt.Errorf("%T: %w", obj, err)
		}
		delete(fields, "status")
		if metadata, ok := fields["metadata"].(map[string]any); ok {
			delete(metadata, "creationTimestamp")
		}
		if spec, ok := fields["spec"].(map[string]any); ok && len(spec) == 0 {
			delete(fields, "spec")
		}
		data, err := yaml.Marshal(fields)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}
