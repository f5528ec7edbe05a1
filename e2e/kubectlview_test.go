package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/konnect-operator/konnect-operator/pkg/companions"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// kubectlName is how a user names an object's kind to kubectl without
// ambiguity: plural.group.
func kubectlName(c *clusterEnv, o *unstructured.Unstructured) (string, error) {
	mapping, err := c.resource(o.GroupVersionKind())
	if err != nil {
		return "", err
	}
	return mapping.Resource.Resource + "." + mapping.Resource.Group, nil
}

// namespaceArgs addresses o's namespace, if it has one.
func namespaceArgs(o *unstructured.Unstructured) []string {
	if o.GetNamespace() == "" {
		return nil
	}
	return []string{"--namespace", o.GetNamespace()}
}

// checkGetColumns runs `kubectl get` on o and checks that the table shows
// the CRD's printer columns, with True in the Programmed (or Valid) column
// and a Konnect ID where there is an ID column.
func checkGetColumns(ctx context.Context, c *clusterEnv, o *unstructured.Unstructured) error {
	resource, err := kubectlName(c, o)
	if err != nil {
		return err
	}
	crdJSON, err := c.kubectl(ctx, "", "get", "crd", resource, "-o", "json")
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(crdJSON), &crd); err != nil {
		return err
	}
	want := []string{"NAME"}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			for _, col := range v.AdditionalPrinterColumns {
				if col.Priority == 0 {
					want = append(want, strings.ToUpper(col.Name))
				}
			}
		}
	}
	out, err := c.kubectl(ctx, "", append([]string{"get", resource, o.GetName()}, namespaceArgs(o)...)...)
	if err != nil {
		return err
	}
	table := parseTable(out)
	if len(table) != 1 {
		return fmt.Errorf("kubectl get %s %s printed %d rows:\n%s", resource, o.GetName(), len(table), out)
	}
	row := table[0]
	var got []string
	for _, col := range row {
		got = append(got, col.header)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("kubectl get %s: columns %v, want %v", resource, got, want)
	}
	for _, col := range row {
		switch col.header {
		case "PROGRAMMED", "VALID":
			if col.value != "True" {
				return fmt.Errorf("kubectl get %s %s: %s column is %q:\n%s", resource, o.GetName(), col.header, col.value, out)
			}
		case "ID":
			if col.value == "" {
				return fmt.Errorf("kubectl get %s %s: empty ID column:\n%s", resource, o.GetName(), out)
			}
		}
	}
	return nil
}

// cell is one column of one row of a kubectl table.
type cell struct{ header, value string }

// parseTable splits kubectl's aligned table output by the header's column
// positions, so that empty cells stay in their column.
func parseTable(out string) [][]cell {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		return nil
	}
	header := lines[0]
	var starts []int
	// kubectl pads columns with at least three spaces; a single space is
	// part of a column name ("BACKEND TYPE").
	for i := range header {
		if header[i] != ' ' && (i == 0 || i >= 2 && header[i-1] == ' ' && header[i-2] == ' ') {
			starts = append(starts, i)
		}
	}
	var rows [][]cell
	for _, line := range lines[1:] {
		var row []cell
		for i, start := range starts {
			end := len(line)
			if i+1 < len(starts) && starts[i+1] < end {
				end = starts[i+1]
			}
			headerEnd := len(header)
			if i+1 < len(starts) {
				headerEnd = starts[i+1]
			}
			value := ""
			if start < len(line) {
				value = strings.TrimSpace(line[start:end])
			}
			row = append(row, cell{header: strings.TrimSpace(header[start:headerEnd]), value: value})
		}
		rows = append(rows, row)
	}
	return rows
}

// checkDescribe runs `kubectl describe` on o and checks that it shows the
// ready condition as True and a Normal Event from the operator saying what
// it did in Konnect.
func checkDescribe(ctx context.Context, c *clusterEnv, o *unstructured.Unstructured) error {
	resource, err := kubectlName(c, o)
	if err != nil {
		return err
	}
	out, err := c.kubectl(ctx, "", append([]string{"describe", resource, o.GetName()}, namespaceArgs(o)...)...)
	if err != nil {
		return err
	}
	conditions := describedConditions(out)
	typ := readyCondition(o.GetKind())
	if conditions[typ] != "True" {
		return fmt.Errorf("kubectl describe %s %s: %s condition is %q (conditions %v)", resource, o.GetName(), typ, conditions[typ], conditions)
	}
	reasons := describedEvents(out)
	// TookBack: an entity that is there before its object (a portal's
	// customization).
	wanted := []string{controller.EventCreated, controller.EventFound, controller.EventTookBack, controller.EventUpdated, controller.EventBorrowed, controller.EventAdopted, companions.EventTokenValid}
	for _, r := range reasons {
		if slices.Contains(wanted, r) {
			return nil
		}
	}
	return fmt.Errorf("kubectl describe %s %s: no Normal Event from konnect-operator with a reason of %v (events: %v):\n%s", resource, o.GetName(), wanted, reasons, out)
}

// describedConditions reads the Conditions block of kubectl describe: each
// condition's Status by Type.
func describedConditions(out string) map[string]string {
	conditions := map[string]string{}
	in := false
	status := ""
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "Conditions:":
			in = true
		case !in:
		case strings.HasPrefix(trimmed, "Status:"):
			status = strings.TrimSpace(strings.TrimPrefix(trimmed, "Status:"))
		case strings.HasPrefix(trimmed, "Type:"):
			conditions[strings.TrimSpace(strings.TrimPrefix(trimmed, "Type:"))] = status
			status = ""
		case !strings.HasPrefix(line, "    "):
			in = false
		}
	}
	return conditions
}

// describedEvents returns the reasons of the Normal Events from
// konnect-operator in kubectl describe's Events table.
func describedEvents(out string) []string {
	_, events, ok := strings.Cut(out, "\nEvents:")
	if !ok {
		return nil
	}
	var reasons []string
	for _, line := range strings.Split(events, "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 5 && fields[0] == "Normal" && slices.Contains(fields, "konnect-operator") {
			reasons = append(reasons, fields[1])
		}
	}
	return reasons
}
