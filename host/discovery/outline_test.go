package discovery

import (
	"testing"

	"github.com/mmcp-dev/mmcp/host/observation"
)

func TestOutline(t *testing.T) {
	yes, no := true, false
	nodes := []observation.A11yNode{
		{Ref: "e1", Role: "heading", Name: "Send", Path: []string{}},
		{Ref: "e2", Role: "button", Name: `Say "hi"`, Path: []string{}, Disabled: &yes},
		{Ref: "e3", Role: "dialog", Name: "Confirm", Path: []string{"dialog:Confirm"}},
		{Ref: "e4", Role: "heading", Name: "Fee", Path: []string{"dialog:Confirm"}},
		{Ref: "e5", Role: "checkbox", Name: "Agree", Path: []string{"dialog:Confirm"}, Checked: &no},
		{Ref: "e6", Role: "combobox", Name: "Gas", Path: []string{"dialog:Confirm"}, Expanded: &yes},
		{Ref: "e7", Role: "link", Name: "More", Path: []string{}},
		// a subtree under a dialog that is not a node (rootSelector)
		{Ref: "e8", Role: "button", Name: "OK", Path: []string{"dialog:Other", "heading:Top"}},
		{Ref: "e9", Role: "textbox", Name: "two\nlines", Path: []string{}, Disabled: &yes, Checked: &yes},
	}
	want := `e1 heading:Send
e2 button[disabled]:Say "hi"
e3 dialog:Confirm
 e4 heading:Fee
 e5 checkbox[unchecked]:Agree
 e6 combobox[expanded]:Gas
e7 link:More
dialog:Other
 heading:Top
  e8 button:OK
e9 textbox[disabled,checked]:two lines
`
	if got := Outline(nodes); got != want {
		t.Fatalf("Outline:\n%s\nwant:\n%s", got, want)
	}
	if got := Outline(nil); got != "" {
		t.Fatalf("Outline(nil) = %q, want empty", got)
	}
}
