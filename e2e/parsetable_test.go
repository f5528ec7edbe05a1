package e2e

import "testing"

func TestParseTableKeepsMultiWordHeaders(t *testing.T) {
	out := "NAME    BACKEND TYPE   PREFIX   AGE   PROGRAMMED\n" +
		"vault   env            env-p    3s    True\n"
	rows := parseTable(out)
	if len(rows) != 1 {
		t.Fatalf("got %d rows", len(rows))
	}
	want := []cell{{"NAME", "vault"}, {"BACKEND TYPE", "env"}, {"PREFIX", "env-p"}, {"AGE", "3s"}, {"PROGRAMMED", "True"}}
	if len(rows[0]) != len(want) {
		t.Fatalf("got %+v, want %+v", rows[0], want)
	}
	for i := range want {
		if rows[0][i] != want[i] {
			t.Errorf("column %d = %+v, want %+v", i, rows[0][i], want[i])
		}
	}
}
